/** Types of bundle-code-cache.mjs, for the engine side (code-cache.ts). */
export declare const BUNDLES: readonly string[];
export declare function cacheFileOf(dir: string, bundle: string): string;
export declare function withBundleCache<T>(
  pwDir: string,
  cacheDir: string | null | undefined,
  load: () => T,
): { value: T; scripts: Map<string, unknown>; outcome: 'used' | 'rejected' | 'none' };
