import * as E from 'fp-ts/lib/Either.js';
import { formatDuration } from './duration.js';
import { type DurationLimit, judgeDuration, TICK_WAIT, type ZeroDuration } from './duration-limit.js';
import { DEFAULTS, ENV, type Environment } from './environment.js';
import { parseFleetHaltConfig } from './fleet-halt-config.js';
import { parseFleetPromotionConfig } from './fleet-promotion-config.js';
import { parseMaintenanceWindowConfig, WINDOW_ENV } from './maintenance-window-config.js';
import { DEFAULT_PROFILE } from './profile/chart-profile.js';
import { CHART_TOPOLOGY_VARIABLES, chartNamesOf } from './profile/chart-variables.js';
import { describeProfileProblem, parseProfile } from './profile/parse-profile.js';
import type { Profile } from './profile/profile.js';
import { type Topology, topologyOf } from './profile/topology.js';
import { rolloutSecondsKeyName } from './profile/topology-keys.js';
import { Problems, read, required } from './read-environment.js';
import { parseSignatureConfig } from './signature-config.js';
import { parseStagingConfig } from './staging-config.js';
import type { ConfigError, MirrorConfig, TickConfig } from './tick-config.js';
import { withoutUserinfo } from './url-userinfo.js';

// Every problem at once, each naming the variable and its value: an operator
// fixing a values file should not have to redeploy once per typo. Nothing here
// silently disables a guard — the reference's `[ n -ge abc ]` is false, which
// turned a typo'd ceiling into no ceiling (docs/behaviour.md §5).

const IMAGE_TAG = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/;
const HTTP_URL = /^https?:\/\/[^\s/?#]+(\/[^\s?#]*)?$/;
// A token realm may carry its query (`?service=…`): the token request keeps it.
const HTTP_URL_WITH_QUERY = /^https?:\/\/[^\s/?#]+(\/[^\s?#]*)?(\?[^\s#]*)?$/;
const POSITIVE_INTEGER = /^[0-9]+$/;

const ceiling = (env: Environment, problems: Problems, variable: string, fallback: number): number => {
  const value = read(env, variable);
  if (value === undefined) return fallback;
  const parsed = Number(value);
  if (!POSITIVE_INTEGER.test(value) || !Number.isSafeInteger(parsed) || parsed < 1) {
    problems.add(
      variable,
      value,
      'must be a whole number of at least 1 (a ceiling that is not a number would disable its guard)',
    );
    return fallback;
  }
  return parsed;
};

/**
 * START_JITTER's cap: it is waited inside the tick, before its first registry
 * request, so the Job's deadline must hold it beside every other bound
 * (worstCaseTickMs counts it). The shipped activeDeadlineSeconds (5400 s)
 * holds a default tick with this much jitter and a soak (packages/cli/test/
 * deploy.test.ts), and a longer spread would run into the next tick of the
 * 15-minute schedule, which concurrencyPolicy: Forbid then skips.
 */
export const MAX_START_JITTER_MS = 10 * 60_000;

const START_JITTER_LIMIT: DurationLimit = {
  ms: MAX_START_JITTER_MS,
  problem: `must be at most ${formatDuration(MAX_START_JITTER_MS)}: it is waited inside the tick, before its first registry request, so the Job's activeDeadlineSeconds (5400 s as shipped) must hold it beside every other bound of the tick, and a longer spread runs into the next tick of the 15-minute schedule`,
};

/**
 * The longest required age of a changed digest (MIN_DIGEST_AGE, RING_DELAY,
 * and MIN_DIGEST_AGE + ROLLOUT_RING × RING_DELAY): 30 days. Not a wait — the
 * age is compared with this edge's pending record (docs/behaviour.md §3.4a
 * step 2) — but a tag that moves more often than the required age never gets
 * a build through, so a longer one is refused as a likely typo.
 */
export const MAX_DIGEST_AGE_MS = 720 * 3_600_000;

/** Why the age has a limit at all, said after the limit. */
const AGE_REASON =
  "it is an age, compared with this edge's record of when it first saw the digest, not a wait; a tag that moves more often than the required age never gets a build through, so a longer one is refused as a likely typo";

const AGE_LIMIT: DurationLimit = {
  ms: MAX_DIGEST_AGE_MS,
  problem: `must be at most ${formatDuration(MAX_DIGEST_AGE_MS)} (30 days): ${AGE_REASON}`,
};

/**
 * A duration variable, judged by duration-limit.ts: a bound refuses zero, a
 * switch whose `0s` is off allows it (ROLLOUT_STABLE_FOR: no window;
 * MIN_DIGEST_AGE and START_JITTER: off, the script's behaviour); each is
 * capped by its own limit — a wait inside the tick by what the tick's
 * deadline holds, an age by {@link MAX_DIGEST_AGE_MS}.
 */
const duration = (
  env: Environment,
  problems: Problems,
  variable: string,
  fallback: string,
  limit: DurationLimit = TICK_WAIT,
  zero: ZeroDuration = 'refused',
): number => {
  const value = read(env, variable) ?? fallback;
  const judged = judgeDuration(value, zero, limit);
  if ('ms' in judged) return judged.ms;
  problems.add(variable, value, judged.problem);
  return 0;
};

/**
 * The whole required age, MIN_DIGEST_AGE + ROLLOUT_RING × RING_DELAY, obeys
 * the age's limit too: each part may be fine and the sum years (1000 rings of
 * a day). Named on ROLLOUT_RING, the factor that makes it grow; judged only
 * when each part parsed.
 */
const requiredAgeWithinLimit = (
  env: Environment,
  problems: Problems,
  parts: { readonly minDigestAgeMs: number; readonly rolloutRing: number; readonly ringDelayMs: number },
): void => {
  const { minDigestAgeMs, rolloutRing, ringDelayMs } = parts;
  const required = minDigestAgeMs + rolloutRing * ringDelayMs;
  // Ring 0's required age is MIN_DIGEST_AGE alone, which its own limit already holds.
  if (required <= MAX_DIGEST_AGE_MS) return;
  const said = (ms: number) => (ms === 0 ? '0s' : formatDuration(ms));
  problems.add(
    ENV.rolloutRing,
    read(env, ENV.rolloutRing),
    `makes the required age MIN_DIGEST_AGE + ROLLOUT_RING × RING_DELAY = ${said(minDigestAgeMs)} + ${rolloutRing} × ${said(ringDelayMs)} = ${said(required)}, more than ${formatDuration(MAX_DIGEST_AGE_MS)} (30 days): ${AGE_REASON}`,
  );
};

/** A ceiling (a whole number ≥ 1), or `off`: the guard it sets is not counted at all (the script). */
const ceilingOrOff = (env: Environment, problems: Problems, variable: string, fallback: number): number | 'off' => {
  const value = read(env, variable);
  if (value === 'off') return 'off';
  if (value === undefined) return fallback;
  const parsed = Number(value);
  if (!POSITIVE_INTEGER.test(value) || !Number.isSafeInteger(parsed) || parsed < 1) {
    problems.add(variable, value, 'must be a whole number of at least 1, or "off" (no such ceiling, as the script)');
    return fallback;
  }
  return parsed;
};

/**
 * MAINTENANCE_WINDOW records each workload's rollout durations under
 * `<prefix>/rollout-seconds-<workload id>` (docs/behaviour.md §3.4d): an id
 * too long for that annotation name's 63 characters is refused, naming it,
 * before anything is asked.
 */
const windowKeysFit = (env: Environment, problems: Problems, topology: Topology | undefined): void => {
  for (const workload of topology?.workloads ?? []) {
    if (rolloutSecondsKeyName(workload.id).length <= 63) continue;
    problems.add(
      WINDOW_ENV.maintenanceWindow,
      read(env, WINDOW_ENV.maintenanceWindow),
      `needs each workload's rollout durations under rollout-seconds-<workload id>, at most 63 characters: workload id "${workload.id}" is ${workload.id.length} characters, at most ${63 - rolloutSecondsKeyName('').length} fit`,
    );
  }
};

const rolloutFailureMode = (env: Environment, problems: Problems, variable: string): 'keep' | 'revert' => {
  const value = read(env, variable);
  if (value === undefined || value === 'keep') return 'keep';
  if (value === 'revert') return 'revert';
  problems.add(
    variable,
    value,
    'must be "keep" (leave a failed rollout as it is, as the script) or "revert" (roll it back to the last recorded digest)',
  );
  return 'keep';
};

/** A whole number ≥ 0 (ROLLOUT_RING): anything else would put the edge in a ring nobody meant. */
const wholeNumber = (env: Environment, problems: Problems, variable: string, fallback: number): number => {
  const value = read(env, variable);
  if (value === undefined) return fallback;
  const parsed = Number(value);
  if (!POSITIVE_INTEGER.test(value) || !Number.isSafeInteger(parsed)) {
    problems.add(variable, value, 'must be a whole number, 0 or more (0: the canary ring)');
    return fallback;
  }
  return parsed;
};

const switchOf =
  (meaning: string) =>
  (env: Environment, problems: Problems, variable: string, fallback = false): boolean => {
    const value = read(env, variable);
    if (value === undefined) return fallback;
    if (value === '0') return false;
    if (value === '1') return true;
    problems.add(variable, value, `must be ${meaning}`);
    return fallback;
  };

const pin = switchOf('"1" (pinned) or "0" (refreshed)');

/** An `on`/`off` switch; unset: its default. */
const onOffWord = (
  env: Environment,
  problems: Problems,
  variable: string,
  fallback: boolean,
  meaning: string,
): boolean => {
  const value = read(env, variable);
  if (value === undefined) return fallback;
  if (value === 'on') return true;
  if (value === 'off') return false;
  problems.add(variable, value, `must be "on" or "off" (${meaning})`);
  return fallback;
};
const onOff = switchOf('"1" (on) or "0" (off)');

/**
 * DECOUPLED_REFRESH (I24, docs/profiles.md): on, it refreshes the profile's
 * `decoupled: true` workloads past an unsettled gate. Over a profile that
 * marks none it would refresh nothing while its line named no workload: a
 * switch with nothing to act on is refused, as PREPULL_OUTSIDE_WINDOW
 * without PREPULL=on is. The chart's profile marks its two.
 */
const decoupledRefreshOf = (env: Environment, problems: Problems, profile: Profile | undefined): boolean => {
  const on = onOff(env, problems, ENV.decoupledRefresh);
  if (on && profile !== undefined && !profile.workloads.some((workload) => workload.decoupled === true)) {
    problems.add(
      ENV.decoupledRefresh,
      read(env, ENV.decoupledRefresh),
      'refreshes the workloads the profile marks decoupled: true past an unsettled gate, and it marks none',
    );
  }
  return on;
};

/** The chart's mirror: IMAGE_REGISTRY when it is not Docker Hub (I14). */
const chartMirror = (env: Environment): string | undefined => {
  const registry = read(env, ENV.imageRegistry) ?? DEFAULTS.imageRegistry;
  return registry === DEFAULTS.imageRegistry ? undefined : registry;
};

/**
 * MIRROR_MODE (docs/behaviour.md §3.3): unset, a tick behind a mirror is inert
 * (I14, the script); `follow-upstream` resolves upstream and pins through the
 * mirror, and needs one.
 */
const mirrorOf = (env: Environment, problems: Problems, host: string | undefined): MirrorConfig | undefined => {
  const mode = read(env, ENV.mirrorMode);
  if (mode !== undefined && mode !== 'follow-upstream') {
    problems.add(ENV.mirrorMode, mode, 'must be "follow-upstream" (resolve upstream, pin through the mirror) or unset');
  }
  if (mode !== undefined && host === undefined) {
    problems.add(
      ENV.mirrorMode,
      mode,
      "names no mirror: set IMAGE_REGISTRY to it (the chart's topology) or the profile's top-level mirror",
    );
  }
  return host === undefined ? undefined : { host, followUpstream: mode === 'follow-upstream' };
};

const reconcileMode = (env: Environment, problems: Problems, variable: string): 'off' | 'report' | 'repair' => {
  const value = read(env, variable);
  if (value === undefined || value === '0') return 'off';
  if (value === 'report') return 'report';
  if (value === '1') return 'repair';
  problems.add(
    variable,
    value,
    'must be "0" (off), "report" (say where live images drifted) or "1" (report and re-pin)',
  );
  // Stryker disable next-line StringLiteral: after a problem the config is not returned (Left); any mode would do
  return 'off';
};

const floor = (env: Environment, problems: Problems, variable: string, fallback: number): number | 'off' => {
  const value = read(env, variable);
  if (value === undefined) return fallback;
  if (value === 'off') return 'off';
  const parsed = Number(value);
  if (!POSITIVE_INTEGER.test(value) || !Number.isSafeInteger(parsed)) {
    problems.add(
      variable,
      value,
      'must be a whole number, 0 or more (0: only a 429 holds re-images back), or "off" (no budget guard, as the script)',
    );
    return fallback;
  }
  return parsed;
};

/**
 * The signature variables as the tick verifies with them: VERIFY_SIGNATURES's
 * trust, parsed even while VERIFY_SIGNATURES=off when FLEET_HALT_REF is set —
 * a halt is obeyed only once its signature verifies (docs/behaviour.md §3.4b).
 * The CLI reads the trust's files from this too, so a missing key file is
 * reported beside every other problem of the environment.
 */
export const parseTrustConfig = (env: Environment): ReturnType<typeof parseSignatureConfig> => {
  const haltReference = read(env, ENV.fleetHaltRef)?.trim();
  const promotionReference = read(env, ENV.fleetPromotionRef)?.trim();
  // A promotion, as a halt, counts only once its signature verifies (docs/fleet-promotion.md).
  const neededBy =
    haltReference !== undefined && haltReference !== ''
      ? {
          variable: ENV.fleetHaltRef,
          value: haltReference,
          why: 'a halt is obeyed only once its signature verifies, and no trust is configured to verify it with',
        }
      : promotionReference !== undefined && promotionReference !== ''
        ? {
            variable: ENV.fleetPromotionRef,
            value: promotionReference,
            why: 'a promotion opens a ring only once its signature verifies, and no trust is configured to verify it with',
          }
        : undefined;
  return parseSignatureConfig(env, neededBy);
};

/** The variables a profile pins its images and workloads with, each once, in the profile's order. */
const pinVariablesOf = (profile: Profile): readonly string[] => [
  ...new Set(
    [...profile.images, ...profile.workloads].flatMap((entry) =>
      entry.pinnedBy === undefined ? [] : [entry.pinnedBy],
    ),
  ),
];

/**
 * The profile the tick follows: the document given (IMAGE_REFRESH_PROFILE's,
 * read by the caller), checked whole, or the chart's built from its
 * variables. Undefined when it has problems, each added.
 */
const profileOf = (env: Environment, problems: Problems, document: unknown): Profile | undefined => {
  const file = read(env, ENV.profile);
  if (document === undefined) {
    if (file !== undefined) {
      problems.add(
        ENV.profile,
        file,
        'is set, but no profile document was read from it (the image-refresh CLI reads the file; a library caller passes the document to parseTickConfig)',
      );
      return undefined;
    }
    return DEFAULT_PROFILE(chartNamesOf(env, problems));
  }
  const parsed = parseProfile(document);
  if (E.isRight(parsed)) return parsed.right;
  for (const problem of parsed.left) problems.add(ENV.profile, file, describeProfileProblem(problem));
  return undefined;
};

/** A profile's pins as this edge sets them, each variable `1` or `0` (I13); a placeholder topology when there is no profile. */
const topologyFrom = (
  env: Environment,
  problems: Problems,
  profile: Profile | undefined,
  imageTag: string,
): Topology | undefined => {
  if (profile === undefined) return undefined;
  const pinned = new Set(pinVariablesOf(profile).filter((variable) => pin(env, problems, variable)));
  return topologyOf(profile, { imageTag, isPinned: (variable) => pinned.has(variable) });
};

/**
 * Parse and validate the environment (docs/behaviour.md §2) and, when one is
 * given, the profile document (docs/profiles.md) into a {@link TickConfig}.
 * Pure: reads only `env` and `profile`.
 *
 * `profile` is the IMAGE_REFRESH_PROFILE file as a YAML or JSON parser made
 * it (core reads no file); absent, the tick follows the chart's topology
 * ({@link DEFAULT_PROFILE}) named by RELEASE_NAME and its siblings. With a
 * profile those chart variables are not required, and the ones set are
 * listed in `ignoredVariables`.
 *
 * Returns `Left` with every problem at once, each naming its variable and
 * value (`describeConfigError` words it; a profile's problems name their
 * path in the document): a required variable missing (`RELEASE_NAME`,
 * `RELEASE_NAMESPACE` without a profile, `IMAGE_TAG` unless every image of
 * the profile names its own tag), a name that is not a valid Kubernetes name,
 * a ceiling that is not a whole number ≥ 1, a pin or switch that is not
 * `0`/`1`, a duration without a unit or not above zero, a registry or token
 * realm URL that is not http(s). Nothing is silently defaulted or disabled —
 * the reference's non-integer ceiling turned its guard off (docs/behaviour.md
 * §5); here it is a configuration error, exit 2 (I18).
 */
export const parseTickConfig = (env: Environment, profile?: unknown): E.Either<readonly ConfigError[], TickConfig> => {
  const problems = new Problems();
  const followed = profileOf(env, problems, profile);
  const ownTags = followed?.images.every((image) => image.tag !== undefined) === true;
  const imageTag = ownTags
    ? (read(env, ENV.imageTag) ?? '')
    : required(env, problems, ENV.imageTag, 'the floating tag to follow');
  if (imageTag !== '' && !IMAGE_TAG.test(imageTag)) {
    problems.add(ENV.imageTag, imageTag, 'is not a valid image tag');
  }
  const topology = topologyFrom(env, problems, followed, imageTag);
  const chartOnly = profile !== undefined;
  const pinVariables = followed === undefined ? [] : pinVariablesOf(followed);
  const registryUrl = read(env, ENV.registryUrl) ?? DEFAULTS.registryUrl;
  if (!HTTP_URL.test(registryUrl)) {
    problems.add(
      ENV.registryUrl,
      withoutUserinfo(registryUrl),
      'must be an http(s) URL such as https://registry-1.docker.io',
    );
  }

  const authUrl = read(env, ENV.authUrl);
  if (authUrl !== undefined && !HTTP_URL_WITH_QUERY.test(authUrl)) {
    problems.add(
      ENV.authUrl,
      authUrl,
      'must be an http(s) URL of a token endpoint such as https://auth.docker.io/token?service=registry.docker.io',
    );
  }

  const fleetHalt = parseFleetHaltConfig(env);
  const fleetPromotion = parseFleetPromotionConfig(env);
  const signatures = parseTrustConfig(env);
  problems.list.push(...signatures.problems, ...fleetHalt.problems, ...fleetPromotion.problems);
  const staging = parseStagingConfig(env);
  problems.list.push(...staging.problems);
  const window = parseMaintenanceWindowConfig(env);
  problems.list.push(...window.problems);
  if (window.config !== undefined) windowKeysFit(env, problems, topology);
  const budgetFloor = floor(env, problems, ENV.registryBudgetFloor, DEFAULTS.registryBudgetFloor);
  const settings: Omit<TickConfig, 'topology'> = {
    ownershipCheck: onOffWord(
      env,
      problems,
      ENV.ownershipCheck,
      true,
      'off sets whatever the profile maps, as the script did',
    ),
    ignoredVariables: chartOnly
      ? CHART_TOPOLOGY_VARIABLES.filter((v) => read(env, v) !== undefined && !pinVariables.includes(v))
      : [],
    // A profile's repositories say their registry; IMAGE_REGISTRY is the chart's (I14).
    imageRegistry: chartOnly ? DEFAULTS.imageRegistry : (read(env, ENV.imageRegistry) ?? DEFAULTS.imageRegistry),
    mirror: mirrorOf(env, problems, chartOnly ? followed?.mirror : chartMirror(env)),
    imageTag,
    rolloutTimeoutMs: duration(env, problems, ENV.rolloutTimeout, DEFAULTS.rolloutTimeout),
    maxRefreshAttempts: ceiling(env, problems, ENV.maxRefreshAttempts, DEFAULTS.maxRefreshAttempts),
    maxSkipTicks: ceiling(env, problems, ENV.maxSkipTicks, DEFAULTS.maxSkipTicks),
    settleTimeoutMs: duration(env, problems, ENV.settleTimeout, DEFAULTS.settleTimeout),
    apiTimeoutMs: duration(env, problems, ENV.apiTimeout, DEFAULTS.apiTimeout),
    registryTimeoutMs: duration(env, problems, ENV.registryTimeout, DEFAULTS.registryTimeout),
    registryUrl: registryUrl.replace(/\/+$/, ''),
    authUrl,
    flapLockoutIsFinding: onOff(env, problems, ENV.flapLockoutExit),
    maxResolveFailureTicks: ceilingOrOff(env, problems, ENV.maxResolveFailureTicks, DEFAULTS.maxResolveFailureTicks),
    registryBudgetFloor: budgetFloor === 'off' ? 0 : budgetFloor,
    registryBudgetGuard: budgetFloor !== 'off',
    kubernetesEvents: onOff(env, problems, ENV.kubernetesEvents, true),
    reconcileLive: reconcileMode(env, problems, ENV.reconcileLive),
    decoupledRefresh: decoupledRefreshOf(env, problems, followed),
    onRolloutFailure: rolloutFailureMode(env, problems, ENV.onRolloutFailure),
    rolloutStableForMs: duration(env, problems, ENV.rolloutStableFor, DEFAULTS.rolloutStableFor, TICK_WAIT, 'allowed'),
    // Off, the config is the one it always was (I28); a fleet halt keeps the trust it verifies with.
    ...(signatures.config.mode === 'off' && fleetHalt.config === undefined && fleetPromotion.config === undefined
      ? {}
      : { signatures: signatures.config }),
    ...(fleetHalt.config === undefined ? {} : { fleetHalt: fleetHalt.config }),
    ...(fleetPromotion.config === undefined ? {} : { fleetPromotion: fleetPromotion.config }),
    // The canaries' evidence (docs/fleet-promotion.md): with a push, each record carries its time.
    ...(read(env, 'PUSHGATEWAY_URL') === undefined ? {} : { recordTimes: true }),
    minDigestAgeMs: duration(env, problems, ENV.minDigestAge, DEFAULTS.minDigestAge, AGE_LIMIT, 'allowed'),
    rolloutRing: wholeNumber(env, problems, ENV.rolloutRing, DEFAULTS.rolloutRing),
    ringDelayMs: duration(env, problems, ENV.ringDelay, DEFAULTS.ringDelay, AGE_LIMIT),
    startJitterMs: duration(env, problems, ENV.startJitter, DEFAULTS.startJitter, START_JITTER_LIMIT, 'allowed'),
    // Both off, the config is the one it always was (I43).
    ...(staging.config.platformCheck || staging.config.prepull !== undefined ? { staging: staging.config } : {}),
    // Unset, the config is the one it always was.
    ...(window.config === undefined ? {} : { maintenanceWindow: window.config }),
  };
  // The sum has the same limit, judged from parts that parsed. A part that did not is 0 and named
  // already: a RING_DELAY or ROLLOUT_RING at 0 leaves MIN_DIGEST_AGE alone, inside its own limit, but a
  // MIN_DIGEST_AGE at 0 would judge ROLLOUT_RING × RING_DELAY alone, a guess.
  if (problems.list.every((p) => p.variable !== ENV.minDigestAge)) {
    requiredAgeWithinLimit(env, problems, settings);
  }
  return problems.list.length > 0 || topology === undefined
    ? E.left(problems.list)
    : E.right({ topology, ...settings });
};
