import { describe } from 'vitest';
import { describeClusterPortContract } from '../contract/cluster-port-contract.js';
import { controlPlaneMissing } from '../support/real-cluster/admin.js';
import { startRealPortWorld } from '../support/real-cluster/real-port-world.js';

// The port contract on the real control plane: kube-apiserver with RBAC,
// the Deployment and DaemonSet controllers, kwok's pods, the shipped Roles as
// the only rights, every request through the recording API proxy.

const missing = controlPlaneMissing();
describe.skipIf(missing !== undefined)(
  `on a real control plane${missing === undefined ? '' : ` (skipped: ${missing})`}`,
  () => {
    describeClusterPortContract(startRealPortWorld, 'the real kube-apiserver');
  },
);
