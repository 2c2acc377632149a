import { Ajv2020 } from 'ajv/dist/2020.js';
import fc from 'fast-check';
import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import schema from '../profile.schema.json' with { type: 'json' };
import { DEFAULT_PROFILE } from '../src/config/profile/chart-profile.js';
import { parseProfile } from '../src/config/profile/parse-profile.js';
import { SHOP_PROFILE } from '../src/sim/sim-shop.js';
import { profileArbitrary } from './spec/profile-arbitrary.js';

// The profile's JSON Schema ships for editors (docs/profiles.md). It must
// never refuse a profile the tick follows, and it refuses every problem of
// shape the tick refuses; what only the whole document can say (an
// undeclared image, a duplicate id) is the tick's check alone, as the
// schema's description says.

const validate = new Ajv2020({ allErrors: true, strict: true }).compile(schema);
const schemaAccepts = (document: unknown): boolean => validate(document) === true;
const parserAccepts = (document: unknown): boolean => E.isRight(parseProfile(document));

type Doc = { [field: string]: unknown; images: Record<string, unknown>[]; workloads: Record<string, unknown>[] };
const shopWith = (edit: (doc: Doc) => void): unknown => {
  const doc = structuredClone(SHOP_PROFILE) as unknown as Doc;
  edit(doc);
  return doc;
};

const CHART = DEFAULT_PROFILE({
  releaseName: 'stg',
  releaseNamespace: 'tracebloc',
  deploymentName: 'stg-jobs-manager',
  requestsProxyDeployment: 'stg-requests-proxy',
  resourceMonitorDaemonSet: 'stg-resource-monitor',
  nodeAgentsNamespace: 'tracebloc-node-agents',
});

describe("the profile's JSON Schema", () => {
  it('accepts the shop and the chart, as the tick does', () => {
    for (const profile of [SHOP_PROFILE, CHART]) {
      expect(schemaAccepts(JSON.parse(JSON.stringify(profile)))).toBe(true);
      expect(parserAccepts(profile)).toBe(true);
    }
  });

  it('accepts every profile the property suite draws', () => {
    fc.assert(
      fc.property(profileArbitrary, (profile) => {
        expect(parserAccepts(profile)).toBe(true);
        expect(validate(profile), JSON.stringify(validate.errors)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it.each<[string, (doc: Doc) => void]>([
    ['a missing gate', (d) => delete d.gate],
    ['an unknown field', (d) => (d.gates = ['web'])],
    ['no images', (d) => (d.images = [])],
    ['no workloads', (d) => (d.workloads = [])],
    ['a reserved prefix', (d) => (d.annotationPrefix = 'apps.kubernetes.io')],
    ['a reserved prefix, k8s.io itself', (d) => (d.annotationPrefix = 'k8s.io')],
    ['a prefix that is no DNS subdomain', (d) => (d.annotationPrefix = 'Shop_Example')],
    ['an image name of 42 characters', (d) => ((d.images[1] as Doc['images'][0]).name = 'l'.repeat(42))],
    ['an image name that is no DNS label', (d) => ((d.images[1] as Doc['images'][0]).name = 'Log')],
    ['a repository with a tag', (d) => ((d.images[1] as Doc['images'][0]).repository = 'shop/log:1.0')],
    ['a host with an underscore', (d) => ((d.images[1] as Doc['images'][0]).repository = 'my_host.io/shop/log')],
    ['a path in capitals on a host', (d) => ((d.images[1] as Doc['images'][0]).repository = 'ghcr.io/Shop/log')],
    ['a StatefulSet', (d) => ((d.workloads[1] as Doc['images'][0]).kind = 'StatefulSet')],
    ['a namespace in capitals', (d) => ((d.workloads[1] as Doc['images'][0]).namespace = 'Shop')],
    ['no containers', (d) => ((d.workloads[1] as Doc['images'][0]).containers = {})],
    ['a container name in capitals', (d) => ((d.workloads[1] as Doc['images'][0]).containers = { Worker: 'web' })],
    ['decoupled as a word', (d) => ((d.workloads[1] as Doc['images'][0]).decoupled = 'yes')],
    ['a pin variable with a dash', (d) => ((d.images[0] as Doc['images'][0]).pinnedBy = 'WEB-PINNED')],
    ['a noun on two lines', (d) => (d.nouns = { workloads: 'shop\nworkloads' })],
    ['a noun for something else', (d) => (d.nouns = { containers: 'pods' })],
    ['a tag with a slash', (d) => ((d.images[0] as Doc['images'][0]).tag = 'a/b')],
  ])('refuses %s, as the tick does', (_, edit) => {
    const document = shopWith(edit);
    expect(parserAccepts(document)).toBe(false);
    expect(schemaAccepts(document)).toBe(false);
  });

  it.each<[string, (doc: Doc) => void]>([
    ['a repository on another host', (d) => ((d.images[1] as Doc['images'][0]).repository = 'ghcr.io/shop/log')],
    ['a repository on localhost', (d) => ((d.images[1] as Doc['images'][0]).repository = 'localhost/shop/log')],
    ['a repository on a host with a port', (d) => ((d.images[1] as Doc['images'][0]).repository = 'mirror:5000/log')],
    [
      'a one-part name with a dot (an official image)',
      (d) => ((d.images[1] as Doc['images'][0]).repository = 'my.app'),
    ],
    ['a mirror with a port', (d) => (d.mirror = 'mirror.local:5000')],
  ])('accepts %s, as the tick does', (_, edit) => {
    const document = shopWith(edit);
    expect(parserAccepts(document)).toBe(true);
    expect(schemaAccepts(document)).toBe(true);
  });

  it.each<[string, (doc: Doc) => void]>([
    [
      'a container mapped to an undeclared image',
      (d) => ((d.workloads[1] as Doc['images'][0]).containers = { worker: 'web2' }),
    ],
    ['a duplicate workload id', (d) => ((d.workloads[1] as Doc['images'][0]).id = 'web')],
    ['a gate that is no workload', (d) => (d.gate = 'front')],
    ['an image no container runs', (d) => d.images.push({ name: 'spare', repository: 'shop/spare' })],
  ])('leaves %s to the tick, which refuses it', (_, edit) => {
    const document = shopWith(edit);
    expect(parserAccepts(document)).toBe(false);
    expect(schemaAccepts(document)).toBe(true);
  });
});
