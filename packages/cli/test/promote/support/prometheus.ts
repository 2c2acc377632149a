import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startLocalDaemon } from '../../../../k8s-adapter/test/support/local-daemon.js';
import { PUSHGATEWAY_BINARY, type Pushgateway, startPushgateway } from '../../e2e/support/pushgateway.js';

// A real Prometheus (Debian's /usr/bin/prometheus) on 127.0.0.1 that scrapes
// a real Pushgateway every second with honor_labels: true, as
// docs/fleet-promotion.md asks of a fleet's Prometheus — so `promote` is
// judged on series that went through both. Storage is a temp dir removed at
// stop(). Tests skip, naming the packages, where a binary is missing, except
// in CI (IMAGE_REFRESH_CI=1), where they fail.

export const PROMETHEUS_BINARY = '/usr/bin/prometheus';

const MISSING = `needs ${PROMETHEUS_BINARY} and ${PUSHGATEWAY_BINARY}: apt-get install -y prometheus prometheus-pushgateway`;

export const prometheusBinariesMissing: string | undefined =
  (existsSync(PROMETHEUS_BINARY) && existsSync(PUSHGATEWAY_BINARY)) || process.env.IMAGE_REFRESH_CI === '1'
    ? undefined
    : MISSING;

export interface Stack {
  readonly gateway: Pushgateway;
  readonly prometheusUrl: string;
  /** PUT one grouping's exposition text (replacing the group), e.g. `/job/image-refresh/edge/berlin-1`. */
  push(grouping: string, exposition: string): Promise<void>;
  /** Resolves once Prometheus has scraped after this call began (its own `up` sample is newer). */
  scraped(): Promise<void>;
  stop(): Promise<void>;
}

const instant = async (
  url: string,
  query: string,
): Promise<{ metric: Record<string, string>; value: [number, string] }[]> => {
  const response = await fetch(`${url}/api/v1/query?query=${encodeURIComponent(query)}`, {
    signal: AbortSignal.timeout(5_000),
  });
  const body = (await response.json()) as {
    data: { result: { metric: Record<string, string>; value: [number, string] }[] };
  };
  return body.data.result;
};

export const startStack = async (): Promise<Stack> => {
  if (prometheusBinariesMissing !== undefined || !existsSync(PROMETHEUS_BINARY))
    throw new Error(`IMAGE_REFRESH_CI=1 and the Prometheus tests cannot run: ${MISSING}`);
  const gateway = await startPushgateway();
  const target = gateway.url.replace('http://', '');
  let prometheus: { url: string; stop(): Promise<void> };
  try {
    prometheus = await startLocalDaemon({
      binary: PROMETHEUS_BINARY,
      name: 'prometheus',
      dirPrefix: 'image-refresh-prometheus-',
      args: async (port, dir) => {
        const config = join(dir, 'prometheus.yml');
        writeFileSync(
          config,
          [
            'global: { scrape_interval: 1s, evaluation_interval: 1s }',
            'scrape_configs:',
            '  - job_name: pushgateway',
            '    honor_labels: true',
            `    static_configs: [{ targets: ['${target}'] }]`,
            '',
          ].join('\n'),
        );
        return [
          `--config.file=${config}`,
          `--storage.tsdb.path=${join(dir, 'data')}`,
          `--web.listen-address=127.0.0.1:${port}`,
          '--log.level=warn',
        ];
      },
      readyPath: '/-/ready',
      readyStatuses: [200],
      readyWithinMs: 20_000,
      pollEveryMs: 50,
    });
  } catch (error) {
    await gateway.stop();
    throw error;
  }
  const scraped = async (): Promise<void> => {
    const after = Date.now() / 1_000;
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline) {
      // timestamp(up): the time of the last scrape of the gateway.
      const [up] = await instant(prometheus.url, 'timestamp(up{job="pushgateway"})');
      if (up !== undefined && Number(up.value[1]) > after + 0.05) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error('Prometheus did not scrape the Pushgateway within 10 s');
  };
  return {
    gateway,
    prometheusUrl: prometheus.url,
    push: async (grouping, exposition) => {
      const response = await fetch(`${gateway.url}/metrics${grouping}`, {
        method: 'PUT',
        body: exposition,
        signal: AbortSignal.timeout(5_000),
      });
      if (response.status !== 200 && response.status !== 202)
        throw new Error(`PUT ${grouping} answered ${response.status}: ${await response.text()}`);
    },
    scraped,
    stop: async () => {
      await prometheus.stop();
      await gateway.stop();
    },
  };
};

/** One edge's push, as a tick with the evidence gauges would make it. */
export interface EdgePush {
  readonly ring: number;
  readonly exitCode?: number;
  readonly lockedOut?: boolean;
  readonly rolledBack?: number;
  /** image_refresh_skip_streak: the unsettled ticks in a row (default 0). */
  readonly skipStreak?: number;
  /** The last tick's outcome= (image_refresh_tick_outcome{outcome} 1); default complete. */
  readonly outcome?: string;
  /** image → the recorded digest and since when (Unix seconds). */
  readonly recorded?: Readonly<Record<string, { digest: string; sinceSeconds: number }>>;
  /** image → the quarantined digest and its repository. */
  readonly quarantined?: Readonly<Record<string, { digest: string; repository: string }>>;
}

/** The exposition text of an edge's push. */
export const expositionOf = (edge: EdgePush, nowSeconds: number): string => {
  const lines = [
    '# TYPE image_refresh_rollout_ring gauge',
    `image_refresh_rollout_ring ${edge.ring}`,
    '# TYPE image_refresh_exit_code gauge',
    `image_refresh_exit_code ${edge.exitCode ?? 0}`,
    '# TYPE image_refresh_last_run_timestamp_seconds gauge',
    `image_refresh_last_run_timestamp_seconds ${nowSeconds}`,
    '# TYPE image_refresh_flap_locked_out gauge',
    `image_refresh_flap_locked_out ${edge.lockedOut === true ? 1 : 0}`,
    '# TYPE image_refresh_rolled_back gauge',
    `image_refresh_rolled_back ${edge.rolledBack ?? 0}`,
    '# TYPE image_refresh_skip_streak gauge',
    `image_refresh_skip_streak ${edge.skipStreak ?? 0}`,
    '# TYPE image_refresh_tick_outcome gauge',
    `image_refresh_tick_outcome{outcome="${edge.outcome ?? 'complete'}"} 1`,
    '# TYPE image_refresh_digest_recorded_timestamp_seconds gauge',
    ...Object.entries(edge.recorded ?? {}).map(
      ([image, r]) =>
        `image_refresh_digest_recorded_timestamp_seconds{image="${image}",digest="${r.digest}"} ${r.sinceSeconds}`,
    ),
    '# TYPE image_refresh_image_info gauge',
    ...Object.entries(edge.recorded ?? {}).map(
      ([image, r]) => `image_refresh_image_info{image="${image}",digest="${r.digest}",state="recorded"} 1`,
    ),
    '# TYPE image_refresh_quarantined_digest gauge',
    ...(Object.keys(edge.quarantined ?? {}).length === 0
      ? ['image_refresh_quarantined_digest{image="",digest="",repository=""} 0']
      : Object.entries(edge.quarantined ?? {}).map(
          ([image, q]) =>
            `image_refresh_quarantined_digest{image="${image}",digest="${q.digest}",repository="${q.repository}"} 1`,
        )),
  ];
  return `${lines.join('\n')}\n`;
};
