// Types of binaries.mjs, for the TypeScript test support that builds and finds the control plane.
export declare const MODULE_DIR: string;
export declare const PACKAGES: readonly (readonly [string, string])[];
export declare const cacheRoot: (env?: NodeJS.ProcessEnv) => string;
export declare const goVersion: () => string | undefined;
export declare const kubernetesVersion: () => string;
export declare const buildKey: (go?: string) => string;
export declare const binDir: (env?: NodeJS.ProcessEnv) => string;
export declare const isBuilt: (dir?: string) => boolean;
export declare const buildControlPlane: (options?: { log?: (line: string) => void; env?: NodeJS.ProcessEnv }) => {
  dir: string;
  built: boolean;
};
