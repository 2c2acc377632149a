import { describe, expect, it } from 'vitest';
import { closestName, editDistance } from '../src/config/did-you-mean.js';
import { DEFAULT_PROFILE } from '../src/config/profile/chart-profile.js';
import { parseImageReference, repositoryName } from '../src/config/profile/image-reference.js';
import { topologyOf } from '../src/config/profile/topology.js';
import { imagesWithBookkeeping } from '../src/config/profile/topology-keys.js';
import { accepted, problemsOf, SHOP, shopWith } from './support/profile-document.js';

// docs/profiles.md: a profile document is checked whole, every problem named
// with its path, and the table a tick asks is derived from it once.

describe('parseProfile', () => {
  it('accepts the shop as written, dropping nothing', () => {
    expect(accepted(SHOP)).toEqual(SHOP);
  });

  it("accepts the chart's own topology: the default profile is a profile like any other", () => {
    const chart = DEFAULT_PROFILE({
      releaseName: 'stg',
      releaseNamespace: 'tracebloc',
      deploymentName: 'stg-jobs-manager',
      requestsProxyDeployment: 'stg-requests-proxy',
      resourceMonitorDaemonSet: 'stg-resource-monitor',
      nodeAgentsNamespace: 'tracebloc-node-agents',
    });
    expect(accepted(JSON.parse(JSON.stringify(chart)))).toEqual(chart);
  });

  it('an empty document, or one that is not a mapping, is refused whole', () => {
    expect(problemsOf(null)).toEqual([
      'profile: is empty: a profile names at least its annotationPrefix, gate, images and workloads',
    ]);
    expect(problemsOf(['web'])).toEqual([
      'profile: must be a mapping (annotationPrefix, gate, images, workloads), not a list',
    ]);
  });

  it('a mapping without the required fields names each one', () => {
    expect(problemsOf({})).toEqual([
      'annotationPrefix: is required',
      'images: is required: the images of the profile',
      'workloads: is required: the workloads of the profile',
      'gate: is required',
    ]);
    expect(problemsOf({ annotationPrefix: 'a.b', gate: 'x', images: [], workloads: [] })).toEqual([
      'images: must name at least one of the images',
      'workloads: must name at least one of the workloads',
    ]);
  });

  it('a container mapped to an undeclared image says which, with the closest declared name', () => {
    expect(
      problemsOf(shopWith((d) => Object.assign(d.workloads[0] ?? {}, { containers: { web: 'shop-web', log: 'log' } }))),
    ).toEqual(['workloads[0].containers.web: image "shop-web" is not declared under images']);
    expect(
      problemsOf(shopWith((d) => Object.assign(d.workloads[1] ?? {}, { containers: { worker: 'webb' } }))),
    ).toEqual(['workloads[1].containers.worker: image "webb" is not declared under images (did you mean "web"?)']);
  });

  it('duplicate image names, workload ids and objects are refused at the second, naming the first', () => {
    expect(problemsOf(shopWith((d) => d.images.push({ name: 'log', repository: 'shop/other-log' })))).toEqual([
      'images[3].name: image "log" is declared twice (first at images[1].name)',
    ]);
    expect(
      problemsOf(
        shopWith((d) =>
          d.workloads.push({
            id: 'worker',
            kind: 'Deployment',
            namespace: 'shop',
            name: 'worker-2',
            containers: { w: 'web' },
          }),
        ),
      ),
    ).toEqual(['workloads[3].id: workload "worker" is declared twice (first at workloads[1].id)']);
    expect(
      problemsOf(
        shopWith((d) =>
          d.workloads.push({
            id: 'web-again',
            kind: 'Deployment',
            namespace: 'shop',
            name: 'web',
            containers: { w: 'web' },
          }),
        ),
      ),
    ).toEqual(['workloads[3].name: Deployment shop/web is declared twice (first at workloads[0].name)']);
    expect(problemsOf(shopWith((d) => d.images.push({ name: 'web2', repository: 'docker.io/shop/web' })))).toContain(
      'images[3].repository: repository docker.io/shop/web is declared twice (first at images[0].repository)',
    );
  });

  it('a gate that is not a declared workload, or is decoupled, is refused', () => {
    expect(problemsOf(shopWith((d) => Object.assign(d, { gate: 'webs' })))).toEqual([
      'gate: "webs" is not a declared workload (did you mean "web"?); declared: web, worker, agent',
    ]);
    expect(problemsOf(shopWith((d) => Object.assign(d, { gate: 'worker' })))).toEqual([
      'workloads[1].decoupled: the gate cannot be decoupled: it is what an unsettled tick waits for',
    ]);
  });

  it('an image run by no container is refused', () => {
    expect(problemsOf(shopWith((d) => d.images.push({ name: 'unused', repository: 'shop/unused' })))).toEqual([
      'images[3]: "unused" is run by no container: map it in a workload\'s containers, or remove it',
    ]);
  });

  it('an annotation prefix that is no DNS subdomain, or is reserved for Kubernetes, is refused', () => {
    expect(problemsOf(shopWith((d) => Object.assign(d, { annotationPrefix: 'Shop_Example' })))).toEqual([
      'annotationPrefix: "Shop_Example" is not a valid annotation prefix (a DNS subdomain: lowercase letters, digits, "-" and ".", at most 253)',
    ]);
    for (const reserved of ['kubernetes.io', 'k8s.io', 'apps.kubernetes.io', 'x.k8s.io']) {
      expect(problemsOf(shopWith((d) => Object.assign(d, { annotationPrefix: reserved })))).toEqual([
        `annotationPrefix: "${reserved}" is reserved for Kubernetes itself (${reserved.endsWith('k8s.io') ? 'k8s.io' : 'kubernetes.io'} and its subdomains)`,
      ]);
    }
    // A prefix that only ends in the same letters is not a subdomain of it.
    expect(accepted(shopWith((d) => Object.assign(d, { annotationPrefix: 'notk8s.io' }))).annotationPrefix).toBe(
      'notk8s.io',
    );
  });

  it('names that are not DNS-1123 are refused, each with its path', () => {
    expect(
      problemsOf(
        shopWith((d) => {
          Object.assign(d.workloads[0] ?? {}, { id: 'Web', namespace: 'shop_ns', name: 'web/1' });
          Object.assign(d, { gate: 'Web' });
        }),
      ),
    ).toEqual([
      'workloads[0].id: "Web" is not a DNS-1123 label (lowercase letters, digits and "-", at most 63)',
      'workloads[0].namespace: "shop_ns" is not a DNS-1123 label (lowercase letters, digits and "-", at most 63)',
      'workloads[0].name: "web/1" is not a valid Kubernetes object name (lowercase letters, digits, "-" and ".", at most 253)',
    ]);
    expect(
      problemsOf(shopWith((d) => Object.assign(d.workloads[2] ?? {}, { containers: { Agent: 'agent' } }))),
    ).toEqual([
      'workloads[2].containers.Agent: container name "Agent" is not a DNS-1123 label (lowercase letters, digits and "-", at most 63)',
      'images[2]: "agent" is run by no container: map it in a workload\'s containers, or remove it',
    ]);
  });

  it('an image name so long that its record key is no valid annotation name is refused; 41 characters fit', () => {
    const fits = 'a'.repeat(41);
    const tooLong = 'a'.repeat(42);
    const named = (name: string) =>
      shopWith((d) => {
        Object.assign(d.images[2] ?? {}, { name });
        Object.assign(d.workloads[2] ?? {}, { containers: { agent: name } });
      });
    expect(accepted(named(fits)).images[2]?.name).toBe(fits);
    expect(problemsOf(named(tooLong))).toEqual([
      `images[2].name: "${tooLong}" is too long: its bookkeeping key "last-refreshed-${tooLong}-digest" would be 64 characters, more than the 63 an annotation name may have (an image name may have at most 41)`,
      `workloads[2].containers.agent: image "${tooLong}" is not declared under images`,
    ]);
  });

  it('a field the profile does not know is a problem, with the known field it is closest to', () => {
    expect(problemsOf(shopWith((d) => Object.assign(d.workloads[1] ?? {}, { decopled: true })))).toEqual([
      'workloads[1].decopled: is not a field of this entry (did you mean "decoupled"?); known: id, kind, namespace, name, containers, pinnedBy, decoupled',
    ]);
    expect(problemsOf(shopWith((d) => Object.assign(d, { gates: 'web' })))).toEqual([
      'gates: is not a field of a profile (did you mean "gate"?); known: annotationPrefix, gate, frozenHint, release, mirror, nouns, images, workloads',
    ]);
    expect(accepted(shopWith((d) => Object.assign(d, { mirror: 'mirror.local:5000' }))).mirror).toBe(
      'mirror.local:5000',
    );
    expect(problemsOf(shopWith((d) => Object.assign(d, { mirror: 'docker.io' })))).toEqual([
      'mirror: "docker.io" is Docker Hub, an upstream: a mirror is the registry the pods pull through',
    ]);
    expect(problemsOf(shopWith((d) => Object.assign(d, { mirror: 'https://mirror.local' })))).toEqual([
      'mirror: "https://mirror.local" is not a registry host (host[:port], no scheme or path, e.g. mirror.local:5000)',
    ]);
    // An editor's schema reference is no problem.
    expect(accepted(shopWith((d) => Object.assign(d, { $schema: './profile.schema.json' }))).gate).toBe('web');
  });

  it('nouns: each optional, each one line of at most 60 characters, nothing else', () => {
    expect(accepted(shopWith((d) => (d.nouns = { workloads: 'shop workloads' }))).nouns).toEqual({
      workloads: 'shop workloads',
    });
    expect(
      problemsOf(shopWith((d) => (d.nouns = { images: 'shop\nimages', workloads: 'w'.repeat(61), pods: 'x' }))),
    ).toEqual([
      'nouns.pods: is not a field of this entry; known: images, workloads',
      'nouns.images: "shop\\nimages" must be at most 60 characters on one line',
      `nouns.workloads: "${'w'.repeat(61)}" must be at most 60 characters on one line`,
    ]);
    expect(problemsOf(shopWith((d) => (d.nouns = 'shop')))).toEqual([
      'nouns: must be a mapping (images, workloads), not string',
    ]);
  });

  it('a StatefulSet is not supported yet, another kind is no kind', () => {
    expect(problemsOf(shopWith((d) => Object.assign(d.workloads[1] ?? {}, { kind: 'StatefulSet' })))).toEqual([
      'workloads[1].kind: "StatefulSet" is not supported yet: Deployment or DaemonSet',
    ]);
    expect(problemsOf(shopWith((d) => Object.assign(d.workloads[1] ?? {}, { kind: 'deployment' })))).toEqual([
      'workloads[1].kind: "deployment" must be Deployment or DaemonSet',
    ]);
  });

  it('a repository may live on any host; what is no repository name is refused', () => {
    expect(
      accepted(shopWith((d) => Object.assign(d.images[1] ?? {}, { repository: 'harbor.example:8443/shop/log' })))
        .images[1],
    ).toEqual({ name: 'log', repository: 'harbor.example:8443/shop/log' });
    expect(
      problemsOf(shopWith((d) => Object.assign(d.images[1] ?? {}, { repository: 'my_host.io/shop/log' }))),
    ).toEqual([
      'images[1].repository: "my_host.io/shop/log" is not a repository name (a Docker Hub short name such as shop/web, or host[:port]/path; no tag or digest)',
    ]);
    expect(problemsOf(shopWith((d) => Object.assign(d.images[1] ?? {}, { repository: 'shop/log:v1' })))).toEqual([
      'images[1].repository: "shop/log:v1" is not a repository name (a Docker Hub short name such as shop/web, or host[:port]/path; no tag or digest)',
    ]);
    expect(
      accepted(shopWith((d) => Object.assign(d.images[1] ?? {}, { repository: 'index.docker.io/shop/log' }))).images[1],
    ).toEqual({
      name: 'log',
      repository: 'index.docker.io/shop/log',
    });
  });

  it('wrong types are said as what they are', () => {
    expect(
      problemsOf(
        shopWith((d) => {
          Object.assign(d.images[0] ?? {}, { tag: 'not a tag', pinnedBy: 'WEB-PINNED' });
          Object.assign(d.workloads[1] ?? {}, { decoupled: 'yes', containers: ['worker'] });
        }),
      ),
    ).toEqual([
      'images[0].tag: "not a tag" is not a valid image tag',
      'images[0].pinnedBy: "WEB-PINNED" is not an environment variable name (letters, digits and "_")',
      'workloads[1].containers: must be a mapping of container name → image name, not a list',
      'workloads[1].decoupled: must be true or false, not string',
    ]);
  });

  it('names every problem at once', () => {
    const all = problemsOf(
      shopWith((d) => {
        Object.assign(d, { annotationPrefix: 'k8s.io', gate: 'nope' });
        Object.assign(d.images[0] ?? {}, { name: 'Web' });
      }),
    );
    expect(all.length).toBeGreaterThanOrEqual(4);
    expect(all.map((p) => p.split(':')[0])).toEqual(
      expect.arrayContaining(['annotationPrefix', 'images[0].name', 'workloads[0].containers.web', 'gate']),
    );
  });
});

describe('topologyOf', () => {
  const shop = topologyOf(accepted(SHOP), { imageTag: 'prod', isPinned: () => false });

  it('derives each image once: its repository, its tag, its keys under the prefix', () => {
    expect(shop.images.map((i) => [i.name, i.host, i.repo, i.tag, i.recordKey])).toEqual([
      ['web', 'docker.io', 'shop/web', 'prod', 'shop.example.com/last-refreshed-web-digest'],
      ['log', 'docker.io', 'shop/log', 'prod', 'shop.example.com/last-refreshed-log-digest'],
      ['agent', 'docker.io', 'shop/agent', 'prod', 'shop.example.com/last-refreshed-agent-digest'],
    ]);
    expect(shop.keys.refreshAttempt).toBe('shop.example.com/refresh-attempt');
    expect(shop.gate.id).toBe('web');
  });

  it('maps image → workload → container in one table, image by image', () => {
    expect(shop.managed.map((m) => `${m.image}:${m.workload}/${m.container}`)).toEqual([
      'web:web/web',
      'web:worker/worker',
      'log:web/log',
      'agent:agent/agent',
    ]);
  });

  it('a pinned image and a pinned workload leave the table; an image of its own tag keeps it', () => {
    const pinned = topologyOf(
      accepted(
        shopWith((d) => {
          Object.assign(d.workloads[2] ?? {}, { pinnedBy: 'AGENT_PINNED' });
          Object.assign(d.images[1] ?? {}, { tag: 'v2' });
        }),
      ),
      { imageTag: 'prod', isPinned: (v) => v === 'WEB_PINNED' || v === 'AGENT_PINNED' },
    );
    expect(pinned.managed.map((m) => `${m.image}:${m.workload}/${m.container}`)).toEqual(['log:web/log']);
    expect(pinned.images.map((i) => [i.name, i.pinned, i.tag])).toEqual([
      ['web', true, 'prod'],
      ['log', false, 'v2'],
      ['agent', false, 'prod'],
    ]);
  });

  it('a one-part Docker Hub name is an official image', () => {
    const official = topologyOf(accepted(shopWith((d) => Object.assign(d.images[1] ?? {}, { repository: 'nginx' }))), {
      imageTag: 'prod',
      isPinned: () => false,
    });
    expect(official.images[1]?.repo).toBe('library/nginx');
  });
});

describe('image references', () => {
  it("follow Docker's normalization: one repository however Docker Hub is spelled", () => {
    for (const name of ['tracebloc/x', 'docker.io/tracebloc/x', 'index.docker.io/tracebloc/x']) {
      expect(repositoryName(name)).toEqual({ host: 'docker.io', path: 'tracebloc/x' });
    }
    expect(repositoryName('nginx')).toEqual({ host: 'docker.io', path: 'library/nginx' });
    expect(repositoryName('127.0.0.1:5071/tracebloc/x')).toEqual({ host: '127.0.0.1:5071', path: 'tracebloc/x' });
    expect(repositoryName('localhost/x')).toEqual({ host: 'localhost', path: 'x' });
    expect(repositoryName('Shop/Web')).toBeUndefined();
    expect(repositoryName('shop/web:tag')).toBeUndefined();
  });

  it('parse a container image into its repository, tag and digest', () => {
    expect(parseImageReference('docker.io/tracebloc/x@sha256:ab')).toEqual({
      host: 'docker.io',
      path: 'tracebloc/x',
      digest: 'sha256:ab',
    });
    expect(parseImageReference('127.0.0.1:5071/tracebloc/x:prod')).toEqual({
      host: '127.0.0.1:5071',
      path: 'tracebloc/x',
      tag: 'prod',
    });
    expect(parseImageReference('nginx:1.27')).toEqual({ host: 'docker.io', path: 'library/nginx', tag: '1.27' });
  });
});

describe('bookkeeping of images a profile no longer declares', () => {
  it('is found by its keys under the prefix, whatever else the gate carries', () => {
    expect(
      imagesWithBookkeeping('shop.example.com', [
        'shop.example.com/last-refreshed-web-digest',
        'shop.example.com/pending-old-web-digest',
        'shop.example.com/quarantined-old-web-digest',
        'shop.example.com/refresh-attempt',
        'other.example.com/last-refreshed-x-digest',
        'deployment.kubernetes.io/revision',
      ]),
    ).toEqual(['web', 'old-web']);
  });

  it('only a whole key under this very prefix: no prefix glued to it or one of the same length, nothing before its kind or after -digest', () => {
    expect(
      imagesWithBookkeeping('shop.example.com', [
        'shop.example.comXlast-refreshed-glued-digest',
        'shop.example.org/last-refreshed-elsewhere-digest',
        'shop.example.com/x-last-refreshed-before-digest',
        'shop.example.com/last-refreshed-after-digest-old',
        'shop.example.com/pinned-log-digest',
      ]),
    ).toEqual(['log']);
  });
});

describe('the tick-wide keys, under the prefix', () => {
  it('names the fleet documents each edge keeps beside its digest', () => {
    const { keys } = topologyOf(accepted(SHOP), { imageTag: 'prod', isPinned: () => false });
    expect([keys.fleetHaltDocument, keys.fleetPromotionDigest, keys.fleetPromotionDocument]).toEqual([
      'shop.example.com/fleet-halt-document',
      'shop.example.com/fleet-promotion-digest',
      'shop.example.com/fleet-promotion-document',
    ]);
  });
});

describe('did you mean', () => {
  it('offers the closest name within two edits, and nothing further away', () => {
    expect(editDistance('ON_ROLOUT_FAILURE', 'ON_ROLLOUT_FAILURE')).toBe(1);
    expect(closestName('ON_ROLOUT_FAILURE', ['ON_ROLLOUT_FAILURE', 'ROLLOUT_TIMEOUT'])).toBe('ON_ROLLOUT_FAILURE');
    expect(closestName('gaet', ['gate', 'images'])).toBe('gate');
    expect(closestName('something', ['gate', 'images'])).toBeUndefined();
  });
});
