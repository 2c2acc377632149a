import { formatDuration } from './duration.js';
import { MAX_TICK_DURATION_MS } from './duration-limit.js';
import { DEFAULTS, ENV } from './environment.js';
import { WINDOW_DEFAULTS, WINDOW_ENV } from './maintenance-window-config.js';
import { MAX_DIGEST_AGE_MS, MAX_START_JITTER_MS } from './parse-config.js';
import { CHART_VARIABLE_MEANINGS } from './profile/chart-variables.js';
import { REGISTRY_ACCESS_ENV } from './registry-access-env.js';
import { SIGNATURE_ENV } from './signature-config.js';
import { STAGING_DEFAULTS, STAGING_ENV } from './staging-config.js';

// Every environment variable an image-refresh tick reads, with its default and
// its meaning: the one list `image-refresh help tick`, SWAP.md and
// docs/configuration.md are generated from (a test holds the two files to
// it). Rows are keyed by the config's own tables of names (ENV,
// SIGNATURE_ENV, STAGING_ENV), so a variable added there does not compile until it has a
// row here. The metrics push's three are read by the CLI; they are part of
// what an operator configures, so they are rows too.

/** Where a variable belongs, in the order the lists show them. */
export type VariableSection =
  | 'chart'
  | 'profile'
  | 'bounds'
  | 'registry'
  | 'findings'
  | 'live'
  | 'signatures'
  | 'wayBack'
  | 'fleetSafe'
  | 'stageThenSwitch'
  | 'window'
  | 'fleetHalt'
  | 'metrics';

/** One environment variable, as an operator reads it. */
export interface ConfigVariable {
  readonly name: string;
  /** What unset (or empty) means: a value (`10s`), `required`, or a sentence (`unset: off`). */
  readonly default: string;
  /** One line; `code` marked with backticks (Markdown), which a terminal shows plain. */
  readonly meaning: string;
  readonly section: VariableSection;
}

/** Each section's heading, in order. */
export const VARIABLE_SECTIONS: Readonly<Record<VariableSection, string>> = {
  chart: "The chart's variables (the script's names and meaning)",
  profile: 'A topology of your own',
  bounds: 'Bounds of the calls a tick makes',
  registry: 'The registry',
  findings: 'Findings',
  live: 'Beyond the settled guard',
  signatures: 'Signatures',
  wayBack: 'The way back after a failed rollout',
  fleetSafe: 'Fleet-safe rollout',
  stageThenSwitch: 'Stage, then switch',
  window: 'Maintenance windows',
  fleetHalt: 'The fleet halt',
  metrics: 'Metrics (Prometheus Pushgateway)',
};

type Row = Omit<ConfigVariable, 'name'>;

const chart = (defaultValue: string, meaning: string): Row => ({ default: defaultValue, meaning, section: 'chart' });
const row = (section: VariableSection, defaultValue: string, meaning: string): Row => ({
  default: defaultValue,
  meaning,
  section,
});

const most = (ms: number): string => formatDuration(ms);

const TICK_VARIABLES: Readonly<Record<keyof typeof ENV, Row>> = {
  releaseName: chart('required', "the Helm release; the workloads' default names derive from it"),
  releaseNamespace: chart('required', CHART_VARIABLE_MEANINGS.releaseNamespace),
  deploymentName: chart(...CHART_VARIABLE_MEANINGS.deploymentName),
  requestsProxyDeployment: chart(...CHART_VARIABLE_MEANINGS.requestsProxyDeployment),
  resourceMonitorDaemonSet: chart(...CHART_VARIABLE_MEANINGS.resourceMonitorDaemonSet),
  nodeAgentsNamespace: chart(`\`${DEFAULTS.nodeAgentsNamespace}\``, CHART_VARIABLE_MEANINGS.nodeAgentsNamespace),
  imageRegistry: chart(
    `\`${DEFAULTS.imageRegistry}\``,
    'anything else: a private mirror the pods pull through; refresh is inert behind it unless `MIRROR_MODE=follow-upstream`',
  ),
  imageTag: chart('required', 'the floating tag whose digest is followed'),
  rolloutTimeout: chart(
    `\`${DEFAULTS.rolloutTimeout}\``,
    `the bound of each rollout wait (at most ${most(MAX_TICK_DURATION_MS)})`,
  ),
  maxRefreshAttempts: chart(
    `\`${DEFAULTS.maxRefreshAttempts}\``,
    'failed re-image ticks in a row before the flap lockout',
  ),
  maxSkipTicks: chart(`\`${DEFAULTS.maxSkipTicks}\``, 'unsettled ticks in a row before `IMAGE REFRESH IS FROZEN`'),
  jobsManagerPinned: chart('`0`', CHART_VARIABLE_MEANINGS.jobsManagerPinned),
  podsMonitorPinned: chart('`0`', CHART_VARIABLE_MEANINGS.podsMonitorPinned),
  resourceMonitorPinned: chart('`0`', CHART_VARIABLE_MEANINGS.resourceMonitorPinned),
  requestsProxyPinned: chart('`0`', CHART_VARIABLE_MEANINGS.requestsProxyPinned),
  profile: row(
    'profile',
    "unset: the chart's three workloads",
    "a profile file (YAML or JSON, docs/profiles.md): the images, workloads and gate to follow instead of the chart's; the chart's name variables and pins are then ignored",
  ),
  ownershipCheck: row(
    'profile',
    '`on`',
    'a container that runs another image than the one it follows is a finding, and nothing is re-imaged or recorded that tick; `off`: set every mapped container whatever it runs (the script)',
  ),
  settleTimeout: row(
    'bounds',
    `\`${DEFAULTS.settleTimeout}\``,
    "the settled guard's window (the script's `rollout status --timeout=10s`)",
  ),
  apiTimeout: row('bounds', `\`${DEFAULTS.apiTimeout}\``, 'bound of every Kubernetes API request'),
  registryTimeout: row('bounds', `\`${DEFAULTS.registryTimeout}\``, 'bound of every registry request'),
  registryUrl: row('registry', `\`${DEFAULTS.registryUrl}\``, 'registry API base (a pull-through proxy, tests)'),
  mirrorMode: row(
    'registry',
    'unset: inert behind a mirror (the script)',
    "`follow-upstream`: behind a mirror (`IMAGE_REGISTRY`, or the profile's `mirror`), resolve each tag at its upstream registry and pin `<mirror>/<path>@<digest>` once the mirror serves that digest",
  ),
  authUrl: row(
    'registry',
    "Docker Hub's, on Docker Hub",
    'token realm asked before the first HEAD, `service=` in its query; unset elsewhere: learned from the 401',
  ),
  registryBudgetFloor: row(
    'registry',
    `\`${DEFAULTS.registryBudgetFloor}\``,
    'below this `ratelimit-remaining` (or after any 429) no re-image starts; `0`: only a 429; `off`: no guard (the script)',
  ),
  flapLockoutExit: row(
    'findings',
    '`0`',
    '`1`: a tick in flap lockout with drift pending exits 1, every tick, until re-armed',
  ),
  maxResolveFailureTicks: row(
    'findings',
    `\`${DEFAULTS.maxResolveFailureTicks}\``,
    'ticks in a row in which some image could not be resolved (a 429 aside) before `REGISTRY UNREACHABLE`, exit 1; `off`: never (the script)',
  ),
  kubernetesEvents: row('findings', '`1`', '`0`: record no Kubernetes Events'),
  reconcileLive: row('live', '`0`', '`report`: say where live images drifted from the pins; `1`: also re-pin them'),
  decoupledRefresh: row(
    'live',
    '`0`',
    "`1`: refresh the workloads the profile marks `decoupled` (the chart's two beside its gate) past an unsettled gate, each when it is settled itself",
  ),
  onRolloutFailure: row(
    'wayBack',
    '`keep`',
    '`revert`: a failed rollout goes back to the recorded digests (`docker.io/<repo>@<digest>`), the bad one is quarantined',
  ),
  rolloutStableFor: row(
    'wayBack',
    `\`${DEFAULTS.rolloutStableFor}\``,
    'a completed rollout must stay complete this long before it counts; falling apart inside it is a failed rollout',
  ),
  minDigestAge: row(
    'fleetSafe',
    `\`${DEFAULTS.minDigestAge}\``,
    `a changed digest is acted on only once this edge has seen the tag answer it this long (an age, at most ${most(MAX_DIGEST_AGE_MS)}); \`0s\`: at once (the script)`,
  ),
  rolloutRing: row(
    'fleetSafe',
    `\`${DEFAULTS.rolloutRing}\``,
    "this edge's ring: the digest must be `MIN_DIGEST_AGE + ROLLOUT_RING × RING_DELAY` old here; canaries run `0`",
  ),
  ringDelay: row('fleetSafe', `\`${DEFAULTS.ringDelay}\``, 'how much later each ring acts than the one before'),
  startJitter: row(
    'fleetSafe',
    `\`${DEFAULTS.startJitter}\``,
    `a wait in [0, \`START_JITTER\`) before the first registry request, fixed per edge (at most ${most(MAX_START_JITTER_MS)}); \`0s\`: none (the script)`,
  ),
  fleetHaltRef: row(
    'fleetHalt',
    'unset: no halt is read (the script)',
    'a `[host[:port]/]<repo>:<tag>` (no host: Docker Hub) every tick HEADs; its signed halt (verified with the trust of `SIGNATURE_PUBLIC_KEYS` or the keyless variables) holds back or pins the digests it names',
  ),
  fleetHaltExit: row('fleetHalt', '`0`', '`1`: a halt in force that holds a change back exits 1 (a finding)'),
  fleetPromotionRef: row(
    'fleetSafe',
    'unset: rings wait `ROLLOUT_RING × RING_DELAY` (the clock)',
    "a `[host[:port]/]<repo>:<tag>` every tick HEADs: an edge of ring ≥ 1 acts on a changed digest only once the signed promotion there names it for its ring or a higher one (verified with the halt's trust; docs/fleet-promotion.md)",
  ),
};

const SIGNATURE_VARIABLES: Readonly<Record<keyof typeof SIGNATURE_ENV, Row>> = {
  verifySignatures: row(
    'signatures',
    '`off`',
    "`warn`: verify each new digest's signature, re-image anyway; `enforce`: an unverified one is not (a finding)",
  ),
  signaturePublicKeys: row(
    'signatures',
    'none',
    'comma-separated PEM public-key files (`cosign.pub`); any one verifying is enough (key rotation)',
  ),
  signatureIdentity: row(
    'signatures',
    'none',
    'keyless: the certificate SAN, exact or `/regex/` (with `SIGNATURE_ISSUER` and `SIGSTORE_TRUSTED_ROOT`)',
  ),
  signatureIssuer: row('signatures', 'none', 'keyless: the OIDC issuer in the certificate'),
  sigstoreTrustedRoot: row(
    'signatures',
    'none',
    'keyless: a mounted `trusted_root.json`; verified offline, no request to Rekor, Fulcio or TUF',
  ),
};

const STAGING_VARIABLES: Readonly<Record<keyof typeof STAGING_ENV, Row>> = {
  platformCheck: row(
    'stageThenSwitch',
    '`off`',
    '`on`: a changed digest that drops a platform (`os/arch[/variant]`) the recorded one provides is not re-imaged (a finding)',
  ),
  prepull: row(
    'stageThenSwitch',
    '`off`',
    '`on`: a changed digest is pulled onto every node of the workload (a short-lived pod per node) before the workload is switched',
  ),
  prepullTimeout: row(
    'stageThenSwitch',
    `\`${STAGING_DEFAULTS.prepullTimeout}\``,
    `the whole staging wait of one tick (at most ${most(MAX_TICK_DURATION_MS)}); past it, that workload waits for the next tick, no attempt spent`,
  ),
  prepullParallel: row(
    'stageThenSwitch',
    `\`${STAGING_DEFAULTS.prepullParallel}\``,
    "nodes pulling at once, so a site's link carries one pull at a time by default",
  ),
};

const WINDOW_VARIABLES: Readonly<Record<keyof typeof WINDOW_ENV, Row>> = {
  maintenanceWindow: row(
    'window',
    'unset: any time (the script)',
    'when a re-image may start: `<days> <HH:MM>-<HH:MM> <zone>`, `;`-separated (`Mon-Fri 01:00-04:00 Europe/Berlin; Sat,Sun 00:00-06:00 Europe/Berlin`), and only with room left for its expected duration (docs/behaviour.md §3.4d)',
  ),
  windowMargin: row(
    'window',
    `\`${WINDOW_DEFAULTS.windowMargin}\``,
    "room a plan must leave in the window beyond its expected duration (this edge's longest recorded rollouts)",
  ),
  prepullOutsideWindow: row(
    'window',
    `\`${WINDOW_DEFAULTS.prepullOutsideWindow}\``,
    '`on` (with `PREPULL=on`): a plan the window holds is staged onto the nodes now, so only the switch needs the window',
  ),
};

/** The metrics push's variables, read by the CLI (packages/cli/src/metrics/metrics-config.ts). */
const REGISTRY_ACCESS_VARIABLES: Readonly<Record<keyof typeof REGISTRY_ACCESS_ENV, Row>> = {
  registryAuthFile: row(
    'registry',
    'unset: anonymous tokens only (the script)',
    "a mounted `.dockerconfigjson` (the workloads' pull Secret); the entry for the registry's host is sent over https only, to the registry and the token realm it names",
  ),
  registryCaFile: row(
    'registry',
    "unset: the system's trust",
    "a PEM bundle trusted for registry requests, beside the system's",
  ),
  registryPlainHttp: row(
    'registry',
    'unset: every registry over https',
    "comma-separated `host[:port]`s of a profile's repositories reached over plain `http://` (no credentials are sent there); not Docker Hub, whose URL is `IMAGE_REFRESH_REGISTRY_URL`'s",
  ),
};

const METRICS_VARIABLES: readonly ConfigVariable[] = [
  {
    name: 'PUSHGATEWAY_URL',
    default: 'unset: no push',
    meaning: "the Pushgateway's base URL, e.g. `http://pushgateway.monitoring:9091`",
    section: 'metrics',
  },
  { name: 'METRICS_JOB', default: '`image-refresh`', meaning: 'the `job` of the pushed group', section: 'metrics' },
  {
    name: 'METRICS_GROUPING',
    default: '`namespace=<RELEASE_NAMESPACE>,release=<RELEASE_NAME>`',
    meaning:
      'grouping labels `k=v,…`; replaces the default, so add an edge id as `namespace=…,release=…,edge=berlin-1`',
    section: 'metrics',
  },
];

const SECTION_ORDER = Object.keys(VARIABLE_SECTIONS) as VariableSection[];

/**
 * Every variable a tick reads, grouped by section in {@link VARIABLE_SECTIONS}'
 * order, each section in the order of the config's own tables.
 */
export const CONFIG_VARIABLES: readonly ConfigVariable[] = [
  ...Object.entries(TICK_VARIABLES).map(([key, r]) => ({ name: ENV[key as keyof typeof ENV], ...r })),
  ...Object.entries(SIGNATURE_VARIABLES).map(([key, r]) => ({
    name: SIGNATURE_ENV[key as keyof typeof SIGNATURE_ENV],
    ...r,
  })),
  ...Object.entries(STAGING_VARIABLES).map(([key, r]) => ({
    name: STAGING_ENV[key as keyof typeof STAGING_ENV],
    ...r,
  })),
  ...Object.entries(WINDOW_VARIABLES).map(([key, r]) => ({
    name: WINDOW_ENV[key as keyof typeof WINDOW_ENV],
    ...r,
  })),
  ...Object.entries(REGISTRY_ACCESS_VARIABLES).map(([key, r]) => ({
    name: REGISTRY_ACCESS_ENV[key as keyof typeof REGISTRY_ACCESS_ENV],
    ...r,
  })),
  ...METRICS_VARIABLES,
].sort((a, b) => SECTION_ORDER.indexOf(a.section) - SECTION_ORDER.indexOf(b.section));
