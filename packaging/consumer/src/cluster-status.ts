// A status-like summary of one edge on the real ports: where the cluster is,
// whether each workload is settled and what it runs, the guards' counters,
// and per image the recorded and the registry's digest — then one tick, and
// the summary again. What a fleet dashboard does per cluster, for whatever
// topology the config follows (the chart's, or a profile's).
// Usage: node dist/cluster-status.js   (KUBECONFIG and the chart's variables from the environment)
import {
  counterValue,
  describeConfigError,
  describePortError,
  describeWorkload,
  isWellFormedDigest,
  parseTickConfig,
  runTick,
  shortDigest,
  type TickConfig,
} from '@image-refresh/core';
import {
  createClusterPort,
  createEventsPort,
  createRegistryPort,
  describeBudget,
  inspectWorkload,
  loadClusterConfig,
} from '@image-refresh/k8s-adapter';
import type { KubeConfig } from '@kubernetes/client-node';
import * as E from 'fp-ts/lib/Either.js';
import * as O from 'fp-ts/lib/Option.js';

const summary = async (kubeConfig: KubeConfig, config: TickConfig, label: string): Promise<void> => {
  console.log(`== ${label}`);
  const { topology } = config;
  const annotations: Record<string, string> = {};
  for (const ref of topology.workloads) {
    const read = await inspectWorkload(kubeConfig, ref, { apiTimeoutMs: config.apiTimeoutMs })();
    if (E.isLeft(read)) {
      console.log(`${describeWorkload(ref)}: unreadable (${describePortError(read.left)})`);
      continue;
    }
    const { settledness, images } = read.right;
    const runs = Object.entries(images).map(([container, image]) => `${container}=${image}`);
    console.log(`${describeWorkload(ref)}: ${settledness._tag} ${runs.join(' ')}`);
    if (ref.id === topology.gate.id) Object.assign(annotations, read.right.annotations);
  }
  const counter = (key: string) => counterValue(O.fromNullable(annotations[key]));
  console.log(`skip streak ${counter(topology.keys.skipStreak)}/${config.maxSkipTicks}`);
  console.log(`attempts ${counter(topology.keys.refreshAttempt)}/${config.maxRefreshAttempts}`);
  const registry = createRegistryPort({ baseUrl: config.registryUrl, timeoutMs: config.registryTimeoutMs });
  const answers = await registry.resolveDigests(topology.images.map(({ host, repo, tag }) => ({ host, repo, tag })))();
  topology.images.forEach((image, index) => {
    const recorded = annotations[image.recordKey];
    const answer = answers[index];
    const published =
      answer === undefined || E.isLeft(answer) || !isWellFormedDigest(answer.right.digest)
        ? 'unknown'
        : shortDigest(answer.right.digest);
    const drift =
      recorded !== undefined && answer !== undefined && E.isRight(answer) && answer.right.digest !== recorded;
    console.log(
      `${image.name} recorded ${recorded === undefined ? '-' : shortDigest(recorded)} registry ${published}${drift ? ' DRIFT' : ''}`,
    );
  });
};

const parsed = parseTickConfig(process.env);
if (E.isLeft(parsed)) {
  for (const problem of parsed.left) console.error(describeConfigError(problem));
  process.exit(2);
}
const config = parsed.right;
const cluster = loadClusterConfig(process.env);
if (E.isLeft(cluster)) {
  console.error(cluster.left.message);
  process.exit(1);
}
const { kubeConfig, source } = cluster.right;
console.log(`cluster: ${source}`);

await summary(kubeConfig, config, 'before');
const outcome = await runTick(config, {
  cluster: createClusterPort(kubeConfig, config, { pollIntervalMs: 100 }),
  registry: createRegistryPort({
    baseUrl: config.registryUrl,
    timeoutMs: config.registryTimeoutMs,
    onRateLimit: (budget) => console.log(`budget ${describeBudget(budget)}`),
  }),
  events: createEventsPort(kubeConfig, config, { reportingInstance: 'consumer' }),
});
console.log(`== tick: ${outcome.result} exit=${outcome.exitCode}`);
for (const r of outcome.reimages) console.log(`re-imaged ${describeWorkload(r.workload)} rolledOut=${r.rolledOut}`);
for (const f of outcome.findings) console.log(`finding: ${f.message}`);
await summary(kubeConfig, config, 'after');
process.exitCode = outcome.exitCode;
