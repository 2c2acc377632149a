import { describe, expect, it } from 'vitest';
import { accepted, problemsOf, SHOP, shopWith } from './support/profile-document.js';

// docs/profiles.md, "What is checked, and when", at its edges: the exact
// sentence of every problem a profile document can have, each at its path,
// the longest and shortest accepted value of each name and the first one
// refused, and a profile accepted as written, no field added or dropped.

const RUN_BY_NO_CONTAINER = (index: number, name: string) =>
  `images[${index}]: "${name}" is run by no container: map it in a workload's containers, or remove it`;

/** A profile with nothing optional: one image, one workload, the gate. */
const MINIMAL = {
  annotationPrefix: 'shop.example.com',
  gate: 'web',
  images: [{ name: 'web', repository: 'shop/web' }],
  workloads: [{ id: 'web', kind: 'Deployment', namespace: 'shop', name: 'web', containers: { web: 'web' } }],
};

describe('a profile accepted', () => {
  it('is the document as written: no optional field is added', () => {
    expect(accepted(MINIMAL)).toStrictEqual(MINIMAL);
  });

  it('keeps every optional field the document sets', () => {
    const full = shopWith((d) => {
      Object.assign(d, { release: 'shop', nouns: { images: 'shop images', workloads: 'shop workloads' } });
      Object.assign(d.images[1] ?? {}, { tag: 'v2', pinnedBy: 'LOG_PINNED' });
      Object.assign(d.workloads[2] ?? {}, { pinnedBy: 'AGENT_PINNED' });
    });
    expect(accepted(full)).toStrictEqual(full);
    expect(accepted(shopWith((d) => (d.nouns = { images: 'shop images' }))).nouns).toStrictEqual({
      images: 'shop images',
    });
    expect(accepted(shopWith((d) => (d.nouns = { workloads: 'shop workloads' }))).nouns).toStrictEqual({
      workloads: 'shop workloads',
    });
  });

  it('leaves out "decoupled: false", the default', () => {
    expect(
      accepted({ ...MINIMAL, workloads: [{ ...MINIMAL.workloads[0], decoupled: false }] }).workloads,
    ).toStrictEqual(MINIMAL.workloads);
  });
});

describe('a document that is no mapping', () => {
  it('is refused whole: absent, or said as what it is', () => {
    const empty = 'profile: is empty: a profile names at least its annotationPrefix, gate, images and workloads';
    expect(problemsOf(undefined)).toEqual([empty]);
    expect(problemsOf(null)).toEqual([empty]);
    expect(problemsOf('shop')).toEqual([
      'profile: must be a mapping (annotationPrefix, gate, images, workloads), not string',
    ]);
    expect(problemsOf(7)).toEqual([
      'profile: must be a mapping (annotationPrefix, gate, images, workloads), not number',
    ]);
  });
});

describe('a value of the wrong kind', () => {
  it('is said as what it is: empty, a number, a boolean, null, a list or a mapping', () => {
    expect(
      problemsOf(shopWith((d) => Object.assign(d, { annotationPrefix: '', frozenHint: 7, release: true, gate: null }))),
    ).toEqual([
      'annotationPrefix: must be a non-empty string, not empty',
      'frozenHint: must be a non-empty string, not number',
      'release: must be a non-empty string, not boolean',
      'gate: must be a non-empty string, not null',
    ]);
    expect(
      problemsOf(
        shopWith((d) => {
          Object.assign(d, { annotationPrefix: ['shop.example.com'], gate: { id: 'web' } });
          Object.assign(d.images[1] ?? {}, { tag: '' });
        }),
      ),
    ).toEqual([
      'annotationPrefix: must be a non-empty string, not a list',
      'images[1].tag: must be a non-empty string, not empty',
      'gate: must be a non-empty string, not a mapping',
    ]);
  });

  it('images or workloads that are no list', () => {
    expect(problemsOf(shopWith((d) => Object.assign(d, { images: 'shop/web' })))).toEqual([
      'images: must be a list of images, not string',
      'workloads[0].containers.web: image "web" is not declared under images',
      'workloads[0].containers.log: image "log" is not declared under images',
      'workloads[1].containers.worker: image "web" is not declared under images',
      'workloads[2].containers.agent: image "agent" is not declared under images',
    ]);
    expect(problemsOf(shopWith((d) => Object.assign(d, { workloads: { web: {} } })))).toEqual([
      'workloads: must be a list of workloads, not a mapping',
      RUN_BY_NO_CONTAINER(0, 'web'),
      RUN_BY_NO_CONTAINER(1, 'log'),
      RUN_BY_NO_CONTAINER(2, 'agent'),
    ]);
  });

  it('an image or a workload entry that is no mapping', () => {
    expect(problemsOf(shopWith((d) => d.images.push('shop/extra' as never, null as never)))).toEqual([
      'images[3]: must be a mapping with name and repository, not string',
      'images[4]: must be a mapping with name and repository, not null',
    ]);
    expect(problemsOf(shopWith((d) => d.workloads.push('extra' as never, null as never)))).toEqual([
      'workloads[3]: must be a mapping with id, kind, namespace, name and containers, not string',
      'workloads[4]: must be a mapping with id, kind, namespace, name and containers, not null',
    ]);
  });

  it('a field of an entry the profile does not know', () => {
    expect(problemsOf(shopWith((d) => Object.assign(d.images[1] ?? {}, { tags: 'v2' })))).toEqual([
      'images[1].tags: is not a field of this entry (did you mean "tag"?); known: name, repository, tag, pinnedBy',
    ]);
  });
});

describe("a workload's containers", () => {
  it('are required, and map at least one container', () => {
    expect(problemsOf(shopWith((d) => delete d.workloads[1]?.containers))).toEqual([
      'workloads[1].containers: is required: container name → the image it runs',
    ]);
    expect(problemsOf(shopWith((d) => Object.assign(d.workloads[1] ?? {}, { containers: {} })))).toEqual([
      'workloads[1].containers: must map at least one container to an image',
    ]);
  });

  it('each name an image: a container mapped to anything else is said as what it maps to', () => {
    expect(
      problemsOf(
        shopWith((d) =>
          Object.assign(d.workloads[0] ?? {}, { containers: { web: 'web', log: 'log', a: 7, b: '', c: null } }),
        ),
      ),
    ).toEqual([
      'workloads[0].containers.a: must name an image, not number',
      'workloads[0].containers.b: must name an image, not string',
      'workloads[0].containers.c: must name an image, not null',
    ]);
  });
});

describe('the gate', () => {
  it('not a declared workload and near none: the declared ones are listed, no name offered', () => {
    expect(problemsOf(shopWith((d) => Object.assign(d, { gate: 'frontend' })))).toEqual([
      'gate: "frontend" is not a declared workload; declared: web, worker, agent',
    ]);
  });

  // The gate may be the very entry that is wrong: it is judged only when every workload entry is valid.
  it.each([
    [
      'id',
      'Worker',
      'workloads[1].id: "Worker" is not a DNS-1123 label (lowercase letters, digits and "-", at most 63)',
    ],
    ['kind', 'Job', 'workloads[1].kind: "Job" must be Deployment or DaemonSet'],
    [
      'namespace',
      'Shop',
      'workloads[1].namespace: "Shop" is not a DNS-1123 label (lowercase letters, digits and "-", at most 63)',
    ],
    [
      'name',
      'Worker',
      'workloads[1].name: "Worker" is not a valid Kubernetes object name (lowercase letters, digits, "-" and ".", at most 253)',
    ],
    ['containers', 'worker', 'workloads[1].containers: must be a mapping of container name → image name, not string'],
  ])('is not judged while a workload entry is wrong (its %s)', (field, value, problem) => {
    expect(
      problemsOf(
        shopWith((d) => {
          Object.assign(d, { gate: 'frontend' });
          Object.assign(d.workloads[1] ?? {}, { [field]: value });
        }),
      ),
    ).toEqual([problem]);
  });

  it("a workload entry that is wrong still runs its containers' images", () => {
    expect(problemsOf(shopWith((d) => Object.assign(d.workloads[0] ?? {}, { id: 'Web' })))).toEqual([
      'workloads[0].id: "Web" is not a DNS-1123 label (lowercase letters, digits and "-", at most 63)',
    ]);
  });
});

describe('pins', () => {
  it('a pin that is no environment variable name is refused, on an image or a workload', () => {
    expect(
      problemsOf(
        shopWith((d) => {
          Object.assign(d.images[1] ?? {}, { pinnedBy: '1LOG' });
          Object.assign(d.workloads[2] ?? {}, { pinnedBy: 'AGENT-PINNED' });
        }),
      ),
    ).toEqual([
      'images[1].pinnedBy: "1LOG" is not an environment variable name (letters, digits and "_")',
      'workloads[2].pinnedBy: "AGENT-PINNED" is not an environment variable name (letters, digits and "_")',
    ]);
    const pins = accepted(
      shopWith((d) => {
        Object.assign(d.images[1] ?? {}, { pinnedBy: '_log_pinned2' });
        Object.assign(d.workloads[2] ?? {}, { pinnedBy: 'A' });
      }),
    );
    expect([pins.images[1]?.pinnedBy, pins.workloads[2]?.pinnedBy]).toEqual(['_log_pinned2', 'A']);
  });
});

describe('duplicate repositories', () => {
  /** The shop with two more images of the web's repository, `tags` their own tags (undefined: none), run by the worker. */
  const webTwiceMore = (tags: readonly (string | undefined)[]) =>
    shopWith((d) => {
      tags.forEach((tag, i) => {
        d.images.push({ name: `web-${i}`, repository: 'docker.io/shop/web', ...(tag === undefined ? {} : { tag }) });
      });
      Object.assign(d.workloads[1] ?? {}, { containers: { worker: 'web', a: 'web-0', b: 'web-1' } });
    });

  it('one repository under one tag twice is refused, the tag said', () => {
    expect(problemsOf(webTwiceMore(['stg', 'stg']))).toEqual([
      'images[4].repository: repository docker.io/shop/web:stg is declared twice (first at images[3].repository)',
    ]);
  });

  it('one repository under different tags is one image per tag, IMAGE_TAG one of them; twice on IMAGE_TAG is refused', () => {
    expect(accepted(webTwiceMore(['stg', 'canary'])).images.map((i) => i.tag)).toEqual([
      undefined,
      undefined,
      undefined,
      'stg',
      'canary',
    ]);
    expect(problemsOf(webTwiceMore([undefined, 'stg']))).toEqual([
      'images[3].repository: repository docker.io/shop/web is declared twice (first at images[0].repository)',
    ]);
  });
});

describe('names at their lengths and shapes', () => {
  it('an object name (release, a workload name) is a DNS subdomain: 1 to 253 characters', () => {
    for (const release of ['r', 'a.b-c', `a${'.b'.repeat(126)}`]) {
      expect(accepted(shopWith((d) => Object.assign(d, { release }))).release).toBe(release);
    }
    for (const release of [`a${'.b'.repeat(126)}c`, '-a', 'a-', '.a', 'a.', 'A']) {
      expect(problemsOf(shopWith((d) => Object.assign(d, { release })))).toEqual([
        `release: "${release}" is not a valid Kubernetes object name (lowercase letters, digits, "-" and ".", at most 253)`,
      ]);
    }
    expect(accepted(shopWith((d) => Object.assign(d.workloads[1] ?? {}, { name: 'w' }))).workloads[1]?.name).toBe('w');
  });

  it('an annotation prefix is a DNS subdomain: one character will do', () => {
    expect(accepted(shopWith((d) => Object.assign(d, { annotationPrefix: 'x' }))).annotationPrefix).toBe('x');
  });

  it('an id, a namespace or a container is a DNS-1123 label: 1 to 63 characters', () => {
    const fits = `w${'-'.repeat(61)}w`;
    const label = (id: string, namespace: string, container: string) =>
      shopWith((d) => {
        Object.assign(d.workloads[1] ?? {}, { id, namespace, containers: { [container]: 'web' } });
      });
    expect(accepted(label(fits, fits, fits)).workloads[1]).toEqual({
      id: fits,
      kind: 'Deployment',
      namespace: fits,
      name: 'worker',
      containers: { [fits]: 'web' },
      decoupled: true,
    });
    expect(accepted(label('w', 'n', 'c')).workloads[1]?.id).toBe('w');
    const tooLong = `${fits}w`;
    const notALabel = `is not a DNS-1123 label (lowercase letters, digits and "-", at most 63)`;
    expect(problemsOf(label(tooLong, tooLong, tooLong))).toEqual([
      `workloads[1].id: "${tooLong}" ${notALabel}`,
      `workloads[1].namespace: "${tooLong}" ${notALabel}`,
      `workloads[1].containers.${tooLong}: container name "${tooLong}" ${notALabel}`,
    ]);
  });

  it('a tag is 1 to 128 of letters, digits, "_", "." and "-", not starting with "." or "-"', () => {
    const tagged = (tag: string) => shopWith((d) => Object.assign(d.images[1] ?? {}, { tag }));
    for (const tag of ['v', '_v1.2-rc', `v${'1'.repeat(127)}`]) {
      expect(accepted(tagged(tag)).images[1]?.tag).toBe(tag);
    }
    for (const tag of [`v${'1'.repeat(128)}`, '.v1', '-v1', 'v1+build']) {
      expect(problemsOf(tagged(tag))).toEqual([`images[1].tag: "${tag}" is not a valid image tag`]);
    }
  });

  it('a noun is one line of 1 to 60 characters', () => {
    const sixty = 'n'.repeat(60);
    expect(accepted(shopWith((d) => (d.nouns = { images: sixty }))).nouns).toStrictEqual({ images: sixty });
    expect(problemsOf(shopWith((d) => (d.nouns = { images: '' })))).toEqual([
      'nouns.images: must be a non-empty string, not empty',
    ]);
    expect(problemsOf(shopWith((d) => (d.nouns = { workloads: 'shop\rworkloads' })))).toEqual([
      'nouns.workloads: "shop\\rworkloads" must be at most 60 characters on one line',
    ]);
  });
});

it('the shop of the docs is accepted as written', () => {
  expect(accepted(SHOP)).toStrictEqual(SHOP);
});
