/** Types of slowest-files.mjs, for the run report's test. */
export declare function slowestFiles(reportFile: string, root: string, n?: number): { title: string; lines: string[] }[];
