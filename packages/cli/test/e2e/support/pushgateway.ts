import { existsSync } from 'node:fs';
import { startLocalDaemon } from '../../../../k8s-adapter/test/support/local-daemon.js';

// A real Pushgateway (Debian's prometheus-pushgateway 1.5.1) on 127.0.0.1,
// with persistence off (`--persistence.file=`, empty): Debian's build
// persists to /var/lib/prometheus/pushgateway.data by default, and a gateway
// that loads another run's groups lets one test read another's metrics. Tests
// that need it skip, naming the package, where the binary is missing —
// except in CI (IMAGE_REFRESH_CI=1), where they fail.

export const PUSHGATEWAY_BINARY = '/usr/bin/prometheus-pushgateway';

const MISSING = `needs ${PUSHGATEWAY_BINARY}: install the Debian package with "apt-get install -y prometheus-pushgateway"`;

export const pushgatewayBinaryMissing: string | undefined =
  existsSync(PUSHGATEWAY_BINARY) || process.env.IMAGE_REFRESH_CI === '1' ? undefined : MISSING;

export const PUSHGATEWAY_SETUP_TIMEOUT_MS = 30_000;
const READY_WITHIN_MS = 15_000;

/** One sample as GET /metrics shows it: labels unescaped. */
export interface GatewaySample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

export interface Pushgateway {
  readonly url: string;
  /** Every sample the gateway serves now (its own go_/process_/push_ metrics included). */
  samples(): Promise<GatewaySample[]>;
  stop(): Promise<void>;
}

const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/y;
const unescapeLabelValue = (value: string): string => value.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));

/** The text exposition format, sample lines only — an independent reader of what the gateway serves. */
export const parseExposition = (text: string): GatewaySample[] =>
  text.split('\n').flatMap((line): GatewaySample[] => {
    if (line === '' || line.startsWith('#')) return [];
    const name = /^[a-zA-Z_:][a-zA-Z0-9_:]*/.exec(line)?.[0] ?? '';
    let at = name.length;
    const labels: Record<string, string> = {};
    if (line[at] === '{') {
      at += 1;
      while (line[at] !== '}') {
        LABEL.lastIndex = at;
        const match = LABEL.exec(line);
        if (match === null) throw new Error(`cannot read the labels of ${JSON.stringify(line)}`);
        labels[match[1] ?? ''] = unescapeLabelValue(match[2] ?? '');
        at = LABEL.lastIndex;
        if (line[at] === ',') at += 1;
      }
      at += 1;
    }
    return [{ name, labels, value: Number(line.slice(at).trim().split(' ')[0]) }];
  });

export const startPushgateway = async (): Promise<Pushgateway> => {
  if (!existsSync(PUSHGATEWAY_BINARY)) throw new Error(`IMAGE_REFRESH_CI=1 and the push tests cannot run: ${MISSING}`);
  const { url, stop } = await startLocalDaemon({
    binary: PUSHGATEWAY_BINARY,
    name: 'prometheus-pushgateway',
    dirPrefix: 'image-refresh-pushgateway-',
    args: async (port) => [
      `--web.listen-address=127.0.0.1:${port}`,
      // Empty: nothing persisted, nothing loaded — every gateway starts with no group.
      '--persistence.file=',
      '--log.level=warn',
    ],
    readyPath: '/-/ready',
    readyStatuses: [200],
    readyWithinMs: READY_WITHIN_MS,
    pollEveryMs: 25,
  });
  return {
    url,
    samples: async () => {
      const response = await fetch(`${url}/metrics`, { signal: AbortSignal.timeout(5_000) });
      if (response.status !== 200) throw new Error(`GET ${url}/metrics answered ${response.status}`);
      return parseExposition(await response.text());
    },
    stop,
  };
};
