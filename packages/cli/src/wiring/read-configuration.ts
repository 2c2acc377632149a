import {
  CHART_TOPOLOGY_VARIABLES,
  type ConfigError,
  ENV,
  parseTickConfig,
  parseTrustConfig,
  type TickConfig,
} from '@image-refresh/core';
import * as E from 'fp-ts/lib/Either.js';
import type { MetricsSession } from '../metrics/metrics-push.js';
import { loadSignatureTrust } from './load-signature-trust.js';
import { readProfileDocument } from './read-profile.js';
import { loadRegistryAccess, type RegistryAccess } from './registry-access.js';
import type { SignatureTrust } from './signature-trust.js';

// A command's whole configuration, checked at once before any call
// (docs/behaviour.md §2, I18): the profile file (IMAGE_REFRESH_PROFILE,
// docs/profiles.md), core's parse of the environment and that profile, the
// metrics push's settings (PUSHGATEWAY_URL, METRICS_JOB, METRICS_GROUPING),
// the files the signature check reads (SIGNATURE_PUBLIC_KEYS,
// SIGSTORE_TRUSTED_ROOT) and those of registry access (REGISTRY_AUTH_FILE,
// REGISTRY_CA_FILE). One report of every problem: an operator fixing a
// values file redeploys once, not once per stage that happened to look.

/** What a command runs with, once every part of the environment is known good. */
export interface Configuration {
  readonly config: TickConfig;
  /** VERIFY_SIGNATURES ≠ off or FLEET_HALT_REF set: the keys and keyless trust, read from their files. */
  readonly trust: SignatureTrust | undefined;
  /** PUSHGATEWAY_URL set (and asked for): the tick's metrics session. */
  readonly metrics: MetricsSession | undefined;
  /** REGISTRY_AUTH_FILE and REGISTRY_CA_FILE, read: how registry requests authenticate and whom they trust. */
  readonly registryAccess: RegistryAccess;
}

/** Which parts a command needs beyond core's parse. */
export interface ConfigurationParts {
  /** tick: the metrics settings (their module is loaded only when PUSHGATEWAY_URL is set). */
  readonly metrics?: boolean;
  /** tick, status: the signature check's files (read only when VERIFY_SIGNATURES is on or FLEET_HALT_REF set). */
  readonly signatureFiles?: boolean;
}

type Env = Readonly<Record<string, string | undefined>>;

const metricsOf = async (env: Env): Promise<E.Either<readonly ConfigError[], MetricsSession | undefined>> => {
  if (!env.PUSHGATEWAY_URL) return E.right(undefined);
  // docs/metrics.md: loaded only when PUSHGATEWAY_URL is set.
  const started = (await import('../metrics/metrics-push.js')).startMetrics(env);
  return started ?? E.right(undefined);
};

/**
 * Core's parse of the environment with the profile read from its file. A
 * file that could not be read or parsed is said with the rest of the
 * environment's problems, judged as with a profile: the chart's name
 * variables are not required then, and whether IMAGE_TAG is (a profile
 * whose images all name their tag needs none) cannot be known.
 */
const parseWithProfile = async (env: Env): Promise<E.Either<readonly ConfigError[], TickConfig>> => {
  const document = await readProfileDocument(env);
  if (E.isRight(document)) return parseTickConfig(env, document.right);
  const rest = parseTickConfig({ ...env, [ENV.profile]: undefined });
  const unknowable = (p: ConfigError) =>
    CHART_TOPOLOGY_VARIABLES.includes(p.variable) || (p.variable === ENV.imageTag && p.value === undefined);
  const others = E.isLeft(rest) ? rest.left.filter((p) => !unknowable(p)) : [];
  return E.left([...document.left, ...others]);
};

/** Every problem of the environment, or what a command runs with. */
export const readConfiguration = async (
  env: Env,
  parts: ConfigurationParts,
): Promise<E.Either<readonly ConfigError[], Configuration>> => {
  const parsed = await parseWithProfile(env);
  const metrics = parts.metrics === true ? await metricsOf(env) : E.right(undefined);
  // From the trust variables alone: a missing key file is said beside a typo elsewhere.
  const trust =
    parts.signatureFiles === true ? await loadSignatureTrust(parseTrustConfig(env).config) : E.right(undefined);
  const registryAccess = await loadRegistryAccess(env);
  const problems = [parsed, metrics, trust, registryAccess].flatMap((part) => (E.isLeft(part) ? part.left : []));
  if (E.isLeft(parsed) || E.isLeft(metrics) || E.isLeft(trust) || E.isLeft(registryAccess) || problems.length > 0)
    return E.left(problems);
  return E.right({
    config: parsed.right,
    trust: trust.right,
    metrics: metrics.right,
    registryAccess: registryAccess.right,
  });
};
