/** Types of image-prebuild.mjs, for the deploy tests that wait for the background build. */
export interface PrebuildStatus {
  pid: number;
  log: string;
  scripts: string[];
  state: 'running' | 'done';
  /** Exit code of the first script that failed, else 0; null when podman could not run. */
  code?: number | null;
  seconds?: number;
}
export declare const PREBUILD_ENV: string;
export declare const DEPLOY_TESTS: string[];
export declare const PREBUILD_SCRIPTS: string[];
export declare function selectsDeployTests(filters: string[]): boolean;
export declare function readPrebuildStatus(file: string): PrebuildStatus | null;
export declare function startImagePrebuild(
  root: string,
  systemReady?: Promise<unknown>,
): {
  env: Record<string, string>;
  done: Promise<{ code: number | null; seconds: number; log: string }>;
  engineInputs: (ready: Promise<unknown>) => void;
};
