import type { TickConfig } from '@image-refresh/core';
import type { KubeConfig } from '@kubernetes/client-node';
import type { Fault, FaultMatch } from '../support/fake-api-faults.js';
import type { JsonObject } from '../support/fake-api-patch.js';
import type { RecordedRequest } from '../support/fake-api-server.js';

// The world the adapter's port contract (cluster-port-contract.ts) is told
// in, so each case is written once and run on both servers: the fake API
// server (on-fake-api-server.test.ts) and the real control plane
// (test/real-cluster/). A world is one chart release with its kubeconfig,
// the requests the server saw from the code under test, the faults a proxy
// or the fake can answer with, and a human's hand. Rollouts are whatever
// the server's controllers make of them; a build that never becomes Ready
// is one whose digest begins with "dead" (support/never-ready-build.ts), on
// either server.

export type WorkloadName = 'jobs-manager' | 'requests-proxy' | 'resource-monitor';

/** A verb the code under test is not granted: the shipped Role without it (real), a 403 for it (fake). */
export interface Refusal {
  readonly resource: 'deployments' | 'daemonsets' | 'events';
  readonly verb: 'get' | 'patch' | 'create';
}

export interface WorldOptions {
  /** Annotations the jobs-manager Deployment starts with. */
  readonly annotations?: Readonly<Record<string, string>>;
  readonly daemonSetStrategy?: 'RollingUpdate' | 'OnDelete';
  /** spec.progressDeadlineSeconds of both Deployments (the chart's: 600). */
  readonly progressDeadlineSeconds?: number;
  readonly withoutJobsManager?: boolean;
  readonly refuse?: readonly Refusal[];
}

export interface PortWorld {
  /** For test titles: which server this is. */
  readonly server: string;
  /** The tick config naming this world's release, with `overrides` of the chart's variables. */
  config(overrides?: Readonly<Record<string, string>>): TickConfig;
  /** The credentials the code under test gets. */
  kubeConfig(): KubeConfig;
  /** Every request the code under test sent since the world started (or the log was reset), in order. */
  requests(): readonly RecordedRequest[];
  resetLog(): void;
  /** Answer the next `times` matching requests with `fault` instead of the server. */
  inject(match: FaultMatch, fault: Fault, times?: number): void;
  workload(name: WorkloadName): Promise<JsonObject>;
  /** events.k8s.io/v1 Events of the release namespace, as the server holds them. */
  events(): Promise<JsonObject[]>;
  /** A human's `kubectl annotate` of the jobs-manager Deployment (its own field manager). */
  humanAnnotates(key: string, value: string): Promise<void>;
  /** A human's `kubectl set image` (its own field manager), not the code under test. */
  humanSetsImage(name: WorkloadName, container: string, image: string): Promise<void>;
  close(): Promise<void>;
}

export type StartWorld = (options?: WorldOptions) => Promise<PortWorld>;
