// Types of binaries.mjs, for the TypeScript test support that builds and finds helm.
export declare const MODULE_DIR: string;
export declare const goVersion: () => string | undefined;
export declare const helmVersion: () => string;
export declare const cacheRoot: (env?: NodeJS.ProcessEnv) => string;
export declare const binDir: (env?: NodeJS.ProcessEnv) => string;
export declare const isBuilt: (dir?: string) => boolean;
export declare const helmPath: (env?: NodeJS.ProcessEnv) => string;
export declare const buildHelm: (options?: { log?: (line: string) => void; env?: NodeJS.ProcessEnv }) => {
  dir: string;
  path: string;
  built: boolean;
};
