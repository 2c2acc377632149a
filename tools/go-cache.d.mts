// Types of go-cache.mjs, for the typed modules that wrap it (tools/control-plane, tools/helm).
export interface GoCacheSpec {
  name: string;
  moduleDir: string;
  packages: readonly (readonly [string, string])[];
  keyFiles: readonly string[];
  ldflags: string;
  label: string;
  folder: string;
  cacheVariable: string;
}
export interface GoCache {
  cacheRoot: (env?: NodeJS.ProcessEnv) => string;
  buildKey: (go?: string) => string;
  binDir: (env?: NodeJS.ProcessEnv) => string;
  isBuilt: (dir?: string) => boolean;
  build: (options?: { log?: (line: string) => void; env?: NodeJS.ProcessEnv }) => { dir: string; built: boolean };
}
export declare const goVersion: () => string | undefined;
export declare const goCache: (spec: GoCacheSpec) => GoCache;
