import { describeClusterPortContract } from './cluster-port-contract.js';
import { startFakePortWorld } from './fake-port-world.js';

// The port contract on the fake API server: the fast half, every run. The
// same cases run on the real control plane in the real-cluster project.

describeClusterPortContract(startFakePortWorld, 'the fake API server');
