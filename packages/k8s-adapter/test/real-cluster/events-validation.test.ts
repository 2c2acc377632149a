import { describe } from 'vitest';
import { describeEventValidation, type ValidationServer } from '../contract/events-validation-contract.js';
import type { JsonObject } from '../support/fake-api-patch.js';
import { adminRequest, asAdmin, controlPlaneMissing } from '../support/real-cluster/admin.js';

// The Event validation cases on the real kube-apiserver: the cases the fake
// claims to refuse as a real apiserver does, sent to one, each in a namespace
// of its own.

let serial = 0;

const onRealApiserver = async (): Promise<ValidationServer> => {
  serial += 1;
  const namespace = `rc-events-${process.pid.toString(36)}-${serial}`;
  await asAdmin().core.createNamespace({ body: { metadata: { name: namespace } } });
  return {
    namespace,
    send: (method, body, name) =>
      adminRequest(
        method,
        `/apis/events.k8s.io/v1/namespaces/${namespace}/events${name === undefined ? '' : `/${name}`}`,
        body,
        method === 'PATCH' ? 'application/merge-patch+json' : 'application/json',
      ) as Promise<{ code: number; body: JsonObject }>,
    stored: async () =>
      (await asAdmin().events.listNamespacedEvent({ namespace })).items
        .filter((e) => e.reportingController === 'tracebloc.io/image-refresh')
        .map((e) => JSON.parse(JSON.stringify(e)) as JsonObject),
    close: async () => {
      await asAdmin().core.deleteNamespace({ name: namespace });
    },
  };
};

const missing = controlPlaneMissing();
describe.skipIf(missing !== undefined)(
  `on a real control plane${missing === undefined ? '' : ` (skipped: ${missing})`}`,
  () => {
    describeEventValidation(onRealApiserver, 'the real kube-apiserver');
  },
);
