/** Types of run-report.mjs, for the run report's test. */
export declare function runReportArgs(): string[];
