/** Types of failed-tests.mjs, for the run report's test. */
export declare function failedTests(reportFile: string, root: string): string[];
