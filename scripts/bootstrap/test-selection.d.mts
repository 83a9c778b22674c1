/** Types of test-selection.mjs, for vitest.config.ts. */
export declare function isDatabaseTest(root: string, file: string): boolean;
export declare function isOwnProcessTest(root: string, file: string): boolean;
export declare function testFiles(root: string, dir: string): string[];
export declare function pgTestFiles(root: string, filters?: string[]): string[];
