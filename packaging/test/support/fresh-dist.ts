import { ensureFreshDist } from './libraries.js';

// Vitest global setup of the packaging project: once, before any of its
// files, so the API guard and the consumer test never race to rebuild.
export default function setup(): void {
  ensureFreshDist();
}
