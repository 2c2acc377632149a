import { readFileSync } from 'node:fs';
import { request } from 'node:https';
import { join } from 'node:path';
import {
  AppsV1Api,
  CoreV1Api,
  EventsV1Api,
  KubeConfig,
  type V1DaemonSet,
  type V1Deployment,
} from '@kubernetes/client-node';
import { inject } from 'vitest';
import type { ControlPlaneInfo } from './control-plane-info.js';

// The test's own hands on the real cluster: the admin of the run's control
// plane (global-setup.ts), straight to the apiserver, past the API proxy, so
// nothing the test does to stage a world shows in what the proxy recorded of
// the code under test.

/** Why the real-cluster suites cannot run here, or undefined when they can. */
export const controlPlaneMissing = (): string | undefined => {
  const provided = inject('controlPlane');
  return 'missing' in provided ? provided.missing : undefined;
};

export const controlPlane = (): ControlPlaneInfo => {
  const provided = inject('controlPlane');
  if ('missing' in provided) throw new Error(`no control plane: ${provided.missing}`);
  return provided.info;
};

export interface Admin {
  readonly kubeConfig: KubeConfig;
  readonly core: CoreV1Api;
  readonly apps: AppsV1Api;
  readonly events: EventsV1Api;
}

let admin: Admin | undefined;

export const asAdmin = (): Admin => {
  if (admin !== undefined) return admin;
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromFile(controlPlane().kubeconfig);
  admin = {
    kubeConfig,
    core: kubeConfig.makeApiClient(CoreV1Api),
    apps: kubeConfig.makeApiClient(AppsV1Api),
    events: kubeConfig.makeApiClient(EventsV1Api),
  };
  return admin;
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `probe` every 100 ms until it answers a value, failing with `what` and the last answer after `withinMs`. */
export const eventually = async <A>(
  what: string,
  probe: () => Promise<A | undefined>,
  withinMs = 30_000,
): Promise<A> => {
  const deadline = Date.now() + withinMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline)
      throw new Error(`not within ${withinMs} ms: ${what}${last === undefined ? '' : ` (${String(last)})`}`);
    await sleep(100);
  }
};

/** kubectl's "successfully rolled out", read off the status the real controllers wrote. */
export const isRolledOut = (object: V1Deployment | V1DaemonSet): boolean => {
  const generation = object.metadata?.generation ?? 0;
  const status = object.status;
  if (status === undefined || (status.observedGeneration ?? 0) < generation) return false;
  if ('desiredNumberScheduled' in status) {
    return (
      (status.updatedNumberScheduled ?? 0) >= status.desiredNumberScheduled &&
      (status.numberAvailable ?? 0) >= status.desiredNumberScheduled
    );
  }
  const deployment = object as V1Deployment;
  const replicas = deployment.spec?.replicas ?? 1;
  const s = deployment.status ?? {};
  return (
    (s.updatedReplicas ?? 0) >= replicas &&
    (s.replicas ?? 0) <= (s.updatedReplicas ?? 0) &&
    (s.availableReplicas ?? 0) >= (s.updatedReplicas ?? 0)
  );
};

/** One raw HTTPS request as the admin, for a test that must send what no client would: status and parsed body. */
export const adminRequest = (
  method: string,
  path: string,
  body: unknown,
  contentType = 'application/json',
): Promise<{ readonly code: number; readonly body: Record<string, unknown> }> =>
  new Promise((resolve, reject) => {
    const plane = controlPlane();
    const req = request(
      new URL(path, plane.server),
      {
        method,
        ca: readFileSync(plane.caFile),
        cert: readFileSync(join(plane.dir, 'admin.crt')),
        key: readFileSync(join(plane.dir, 'admin.key')),
        headers: { 'content-type': contentType },
        timeout: 10_000,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({
            code: res.statusCode ?? 0,
            body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>,
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`${method} ${path}: no answer within 10 s`)));
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
