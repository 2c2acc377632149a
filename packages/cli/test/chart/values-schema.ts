import { readFileSync } from 'node:fs';
import { CONFIG_VARIABLES } from '@image-refresh/core';
import { type Shape, VARIABLE_SHAPES } from './variable-shapes.js';

// charts/image-refresh/values.schema.json, built from the tables it must
// agree with: `env:` from the variables a tick reads (CONFIG_VARIABLES, each
// with its meaning and the shape of variable-shapes.ts), `profile:` from the
// profile's own JSON Schema (packages/core/profile.schema.json), the named
// values from the variable each one sets. values-schema.test.ts holds the
// committed file to this; IMAGE_REFRESH_UPDATE_DOCS=1 rewrites it.

export const CHART_DIR = new URL('../../../../charts/image-refresh/', import.meta.url).pathname;
export const VALUES_SCHEMA = `${CHART_DIR}values.schema.json`;
const PROFILE_SCHEMA = new URL('../../../core/profile.schema.json', import.meta.url).pathname;

/** The named values and the variable each sets: the chart's `image-refresh.namedValues`, which a test holds to this. */
export const NAMED_VALUES: Readonly<Record<string, string>> = {
  imageTag: 'IMAGE_TAG',
  rolloutTimeout: 'ROLLOUT_TIMEOUT',
  onRolloutFailure: 'ON_ROLLOUT_FAILURE',
  verifySignatures: 'VERIFY_SIGNATURES',
  prepull: 'PREPULL',
  mirrorMode: 'MIRROR_MODE',
  pushgatewayUrl: 'PUSHGATEWAY_URL',
};

const ENV_NAME = '^[A-Za-z_][A-Za-z0-9_]*$';
const DNS_SUBDOMAIN = '^([a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?)?$';

/** Markdown's backticks read as plain text in an editor's hover. */
const plain = (meaning: string): string => meaning.replaceAll('`', '');

const shapeOf = (name: string): Shape => {
  const shape = VARIABLE_SHAPES[name];
  if (shape === undefined) throw new Error(`${name} has no shape in variable-shapes.ts`);
  return shape;
};

const describedVariable = (name: string): Shape => {
  const variable = CONFIG_VARIABLES.find((v) => v.name === name);
  if (variable === undefined) throw new Error(`${name} is no variable a tick reads`);
  return { description: `${name}: ${plain(variable.meaning)} (unset: ${plain(variable.default)})`, ...shapeOf(name) };
};

/** In `env:`, null unsets a variable as "" does (a values file layered over another clears it so). */
const envVariable = (name: string): Shape => {
  const { description, ...shape } = describedVariable(name);
  return { description, anyOf: [{ type: 'null' }, shape] };
};

/**
 * The profile's schema under $defs, its own $defs beside it as profileImage
 * and profileWorkload, so one document holds everything offline.
 */
const profileDefs = (): Record<string, unknown> => {
  const {
    $schema: _s,
    $id: _i,
    $defs,
    ...profile
  } = JSON.parse(readFileSync(PROFILE_SCHEMA, 'utf8')) as {
    $schema: string;
    $id: string;
    $defs: { image: unknown; workload: unknown };
  };
  const moved = JSON.stringify(profile)
    .replaceAll('"#/$defs/image"', '"#/$defs/profileImage"')
    .replaceAll('"#/$defs/workload"', '"#/$defs/profileWorkload"');
  return { profile: JSON.parse(moved), profileImage: $defs.image, profileWorkload: $defs.workload };
};

const object = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  type: 'object',
  additionalProperties: false,
  properties,
  ...extra,
});

const secretName = { type: 'string', pattern: DNS_SUBDOMAIN };

/** The whole values.schema.json, as the chart ships it. */
export const valuesSchema = (): Record<string, unknown> => ({
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  title: 'image-refresh chart values',
  description:
    'Generated from the variables a tick reads and the profile schema (packages/cli/test/chart/values-schema.ts); docs/helm.md explains each value.',
  ...object(
    {
      // A subchart's values carry the parent's globals.
      global: { type: 'object' },
      image: object(
        {
          repository: { type: 'string', pattern: '^([^@\\s:]+(:[0-9]+)?/)?[^@\\s:]*$' },
          digest: {
            type: 'string',
            pattern: '^(sha256:[a-f0-9]{64})?$',
            description: 'The image by digest (sha256:…): required.',
          },
          pullPolicy: { enum: ['IfNotPresent', 'Always', 'Never'] },
        },
        { required: ['repository', 'digest'] },
      ),
      profile: {
        description: 'The topology a tick follows (docs/profiles.md); {}: the chart tracebloc/client’s.',
        anyOf: [{ type: 'object', maxProperties: 0 }, { $ref: '#/$defs/profile' }],
      },
      env: object(Object.fromEntries(CONFIG_VARIABLES.map((v) => [v.name, envVariable(v.name)]))),
      ...Object.fromEntries(Object.entries(NAMED_VALUES).map(([key, name]) => [key, describedVariable(name)])),
      pins: {
        type: 'object',
        description: "The profile's pin variables (pinnedBy): 1 pins, 0 follows.",
        propertyNames: { pattern: ENV_NAME },
        additionalProperties: shapeOf('JOBS_MANAGER_PINNED'),
      },
      signatureTrust: object({
        secretName,
        publicKeys: { type: 'array', items: { type: 'string', pattern: '^[-._a-zA-Z0-9]+$' } },
        trustedRoot: { type: 'string', pattern: '^[-._a-zA-Z0-9]*$' },
      }),
      registryAuth: object({ secretName }),
      registryCa: object({ secretName, key: { type: 'string', pattern: '^[-._a-zA-Z0-9]+$' } }),
      schedule: { type: 'string', minLength: 1 },
      activeDeadlineSeconds: {
        type: 'integer',
        minimum: 1,
        description: "At least the tick's worst case at the configured bounds (docs/configuration.md).",
      },
      startingDeadlineSeconds: { type: 'integer', minimum: 0 },
      successfulJobsHistoryLimit: { type: 'integer', minimum: 0 },
      failedJobsHistoryLimit: { type: 'integer', minimum: 0 },
      serviceAccount: object({ name: { type: 'string', pattern: DNS_SUBDOMAIN } }),
      resources: { type: 'object' },
      extraEnv: {
        type: 'array',
        items: { type: 'object', required: ['name'], properties: { name: { type: 'string', pattern: ENV_NAME } } },
      },
      podLabels: { type: 'object', additionalProperties: { type: 'string' } },
      podAnnotations: { type: 'object', additionalProperties: { type: 'string' } },
      nodeSelector: { type: 'object', additionalProperties: { type: 'string' } },
      tolerations: { type: 'array', items: { type: 'object' } },
      affinity: { type: 'object' },
    },
    { required: ['image'] },
  ),
  $defs: profileDefs(),
});

/** The file's text: two-space JSON and a final newline, as biome formats it. */
export const valuesSchemaText = (): string => `${JSON.stringify(valuesSchema(), null, 2)}\n`;
