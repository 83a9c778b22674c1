/** Types of build-engine-bundle.mjs, for the tests that start an engine in a process of its own. */
export declare function buildEngineBundle(root?: string): Promise<string>;
