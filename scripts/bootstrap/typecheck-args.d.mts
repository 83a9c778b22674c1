/** Types of typecheck-args.mjs, for the architecture test that checks them against the tsconfigs. */
export declare const TYPECHECK_CONFIGS: string[];
export declare const TSC_STATE: string[];
export declare function typecheckArgs(root: string): string[];
