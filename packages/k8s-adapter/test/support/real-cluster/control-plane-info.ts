// What the real-cluster project's global setup (global-setup.ts) hands every
// test file: where the one control plane of the run is, or why there is none.

export interface ControlPlaneInfo {
  /** The admin kubeconfig (a client certificate in system:masters). */
  readonly kubeconfig: string;
  /** `https://127.0.0.1:<port>` */
  readonly server: string;
  readonly caFile: string;
  /** The control plane's temp dir: its PKI (the apiserver's serving pair, which the API proxy serves too) and logs. */
  readonly dir: string;
  readonly startedInMs: number;
  readonly kubernetesVersion: string;
}

export type ProvidedControlPlane = { readonly info: ControlPlaneInfo } | { readonly missing: string };

declare module 'vitest' {
  export interface ProvidedContext {
    controlPlane: ProvidedControlPlane;
  }
}
