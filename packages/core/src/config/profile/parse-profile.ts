import * as E from 'fp-ts/lib/Either.js';
import { closestName } from '../did-you-mean.js';
import { repositoryName } from './image-reference.js';
import type { Profile, ProfileImage, ProfileNouns, ProfileWorkload, WorkloadKind } from './profile.js';
import { RECORD_KEY_NAME_ROOM, recordKeyName } from './topology-keys.js';

// An IMAGE_REFRESH_PROFILE document (docs/profiles.md), checked whole: every
// problem is named at once with its path in the document
// (`workloads[1].containers.web: image "shop-web" is not declared`), so that
// an operator fixing a profile redeploys once, not once per typo. A field
// this parser does not know is a problem too (a misspelled `decopled: true`
// silently ignored would be a switch that never turns on).

/** One problem of a profile document: where in it, and what is wrong there. */
export interface ProfileProblem {
  /** `workloads[1].containers.web`, `annotationPrefix`, or `profile` for the document as a whole. */
  readonly path: string;
  readonly problem: string;
}

/** `workloads[1].containers.web: image "shop-web" is not declared` */
export const describeProfileProblem = (p: ProfileProblem): string => `${p.path}: ${p.problem}`;

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/;
const TAG = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/;
const VARIABLE = /^[A-Za-z_][A-Za-z0-9_]*$/;
const RESERVED_PREFIXES = ['kubernetes.io', 'k8s.io'];
const KINDS: readonly WorkloadKind[] = ['Deployment', 'DaemonSet'];

const ROOT_FIELDS = [
  'annotationPrefix',
  'gate',
  'frozenHint',
  'release',
  'mirror',
  'nouns',
  'images',
  'workloads',
  '$schema',
];
const NOUN_FIELDS = ['images', 'workloads'];
const IMAGE_FIELDS = ['name', 'repository', 'tag', 'pinnedBy'];
const WORKLOAD_FIELDS = ['id', 'kind', 'namespace', 'name', 'containers', 'pinnedBy', 'decoupled'];

type Fields = Readonly<Record<string, unknown>>;

const isFields = (value: unknown): value is Fields =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const describeValue = (value: unknown): string =>
  value === null ? 'null' : Array.isArray(value) ? 'a list' : typeof value === 'object' ? 'a mapping' : typeof value;

class Problems {
  readonly list: ProfileProblem[] = [];
  add(path: string, problem: string): void {
    this.list.push({ path, problem });
  }
}

const at = (path: string, key: string): string => (path === '' ? key : `${path}.${key}`);

/** Fields the document has that the profile does not know: each named, with the known one it is closest to. */
const unknownFields = (problems: Problems, path: string, fields: Fields, known: readonly string[]): void => {
  for (const key of Object.keys(fields)) {
    if (known.includes(key)) continue;
    const near = closestName(key, known);
    problems.add(
      at(path, key),
      `is not a field of ${path === '' ? 'a profile' : 'this entry'}${near === undefined ? '' : ` (did you mean "${near}"?)`}; known: ${known.filter((k) => k !== '$schema').join(', ')}`,
    );
  }
};

/** A required string; `shape` judges a present one. */
const text = (
  problems: Problems,
  path: string,
  value: unknown,
  shape?: (value: string) => string | undefined,
): string | undefined => {
  if (value === undefined) {
    problems.add(path, 'is required');
    return undefined;
  }
  if (typeof value !== 'string' || value === '') {
    problems.add(path, `must be a non-empty string, not ${typeof value === 'string' ? 'empty' : describeValue(value)}`);
    return undefined;
  }
  const wrong = shape?.(value);
  if (wrong !== undefined) {
    problems.add(path, `${JSON.stringify(value)} ${wrong}`);
    return undefined;
  }
  return value;
};

const optionalText = (
  problems: Problems,
  path: string,
  value: unknown,
  shape?: (value: string) => string | undefined,
): string | undefined => (value === undefined ? undefined : text(problems, path, value, shape));

const dnsLabel = (value: string): string | undefined =>
  DNS_LABEL.test(value) ? undefined : 'is not a DNS-1123 label (lowercase letters, digits and "-", at most 63)';

const objectName = (value: string): string | undefined =>
  DNS_SUBDOMAIN.test(value)
    ? undefined
    : 'is not a valid Kubernetes object name (lowercase letters, digits, "-" and ".", at most 253)';

const imageName = (value: string): string | undefined => {
  const label = dnsLabel(value);
  if (label !== undefined) return label;
  const key = recordKeyName(value);
  return key.length > 63
    ? `is too long: its bookkeeping key "${key}" would be ${key.length} characters, more than the 63 an annotation name may have (an image name may have at most ${63 - RECORD_KEY_NAME_ROOM})`
    : undefined;
};

const annotationPrefix = (value: string): string | undefined => {
  if (!DNS_SUBDOMAIN.test(value)) {
    return 'is not a valid annotation prefix (a DNS subdomain: lowercase letters, digits, "-" and ".", at most 253)';
  }
  const reserved = RESERVED_PREFIXES.find((r) => value === r || value.endsWith(`.${r}`));
  return reserved === undefined ? undefined : `is reserved for Kubernetes itself (${reserved} and its subdomains)`;
};

const repository = (value: string): string | undefined =>
  repositoryName(value) === undefined
    ? 'is not a repository name (a Docker Hub short name such as shop/web, or host[:port]/path; no tag or digest)'
    : undefined;

/** `host[:port]` (or `[v6]:port`), as an image reference names a registry; not Docker Hub, which is upstream. */
const MIRROR_HOST =
  /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

const mirrorHost = (value: string): string | undefined => {
  if (!MIRROR_HOST.test(value))
    return 'is not a registry host (host[:port], no scheme or path, e.g. mirror.local:5000)';
  return ['docker.io', 'index.docker.io', 'registry-1.docker.io'].includes(value)
    ? 'is Docker Hub, an upstream: a mirror is the registry the pods pull through'
    : undefined;
};

const tag = (value: string): string | undefined => (TAG.test(value) ? undefined : 'is not a valid image tag');

const variable = (value: string): string | undefined =>
  VARIABLE.test(value) ? undefined : 'is not an environment variable name (letters, digits and "_")';

/** A list at `path`; a problem when it is absent, not a list or empty. */
const entries = (problems: Problems, path: string, value: unknown, what: string): readonly unknown[] => {
  if (value === undefined) {
    problems.add(path, `is required: the ${what} of the profile`);
    return [];
  }
  if (!Array.isArray(value)) {
    problems.add(path, `must be a list of ${what}, not ${describeValue(value)}`);
    return [];
  }
  if (value.length === 0) problems.add(path, `must name at least one of the ${what}`);
  return value;
};

/** An image entry: what it declares (its name, even when another field is wrong) and, all valid, the image. */
interface ImageEntry {
  readonly name?: string | undefined;
  readonly image?: ProfileImage;
}

const parseImage = (problems: Problems, path: string, value: unknown): ImageEntry => {
  if (!isFields(value)) {
    problems.add(path, `must be a mapping with name and repository, not ${describeValue(value)}`);
    return {};
  }
  unknownFields(problems, path, value, IMAGE_FIELDS);
  const name = text(problems, at(path, 'name'), value.name, imageName);
  const repo = text(problems, at(path, 'repository'), value.repository, repository);
  const ownTag = optionalText(problems, at(path, 'tag'), value.tag, tag);
  const pinnedBy = optionalText(problems, at(path, 'pinnedBy'), value.pinnedBy, variable);
  if (name === undefined || repo === undefined) return { name };
  return {
    name,
    image: {
      name,
      repository: repo,
      ...(ownTag === undefined ? {} : { tag: ownTag }),
      ...(pinnedBy === undefined ? {} : { pinnedBy }),
    },
  };
};

const parseContainers = (
  problems: Problems,
  path: string,
  value: unknown,
  declared: ReadonlySet<string>,
): Record<string, string> | undefined => {
  if (!isFields(value)) {
    problems.add(
      path,
      value === undefined
        ? 'is required: container name → the image it runs'
        : `must be a mapping of container name → image name, not ${describeValue(value)}`,
    );
    return undefined;
  }
  const containers: Record<string, string> = {};
  if (Object.keys(value).length === 0) problems.add(path, 'must map at least one container to an image');
  for (const [container, image] of Object.entries(value)) {
    const where = at(path, container);
    const labelProblem = dnsLabel(container);
    if (labelProblem !== undefined) problems.add(where, `container name ${JSON.stringify(container)} ${labelProblem}`);
    if (typeof image !== 'string' || image === '') {
      problems.add(where, `must name an image, not ${describeValue(image)}`);
      continue;
    }
    if (!declared.has(image)) {
      const near = closestName(image, [...declared]);
      problems.add(
        where,
        `image ${JSON.stringify(image)} is not declared under images${near === undefined ? '' : ` (did you mean "${near}"?)`}`,
      );
      continue;
    }
    if (labelProblem === undefined) containers[container] = image;
  }
  return containers;
};

const kind = (value: string): string | undefined =>
  (KINDS as readonly string[]).includes(value)
    ? undefined
    : value === 'StatefulSet'
      ? 'is not supported yet: Deployment or DaemonSet'
      : 'must be Deployment or DaemonSet';

/** A workload entry: its containers (kept even when another field is wrong) and, all valid, the workload. */
interface WorkloadEntry {
  readonly containers?: Readonly<Record<string, string>> | undefined;
  readonly workload?: ProfileWorkload;
}

const parseWorkload = (
  problems: Problems,
  path: string,
  value: unknown,
  declared: ReadonlySet<string>,
): WorkloadEntry => {
  if (!isFields(value)) {
    problems.add(path, `must be a mapping with id, kind, namespace, name and containers, not ${describeValue(value)}`);
    return {};
  }
  unknownFields(problems, path, value, WORKLOAD_FIELDS);
  const id = text(problems, at(path, 'id'), value.id, dnsLabel);
  const workloadKind = text(problems, at(path, 'kind'), value.kind, kind) as WorkloadKind | undefined;
  const namespace = text(problems, at(path, 'namespace'), value.namespace, dnsLabel);
  const name = text(problems, at(path, 'name'), value.name, objectName);
  const containers = parseContainers(problems, at(path, 'containers'), value.containers, declared);
  const pinnedBy = optionalText(problems, at(path, 'pinnedBy'), value.pinnedBy, variable);
  const decoupled = value.decoupled;
  if (decoupled !== undefined && typeof decoupled !== 'boolean') {
    problems.add(at(path, 'decoupled'), `must be true or false, not ${describeValue(decoupled)}`);
  }
  if (
    id === undefined ||
    workloadKind === undefined ||
    namespace === undefined ||
    name === undefined ||
    containers === undefined
  ) {
    return { containers };
  }
  return {
    containers,
    workload: {
      id,
      kind: workloadKind,
      namespace,
      name,
      containers,
      ...(pinnedBy === undefined ? {} : { pinnedBy }),
      ...(decoupled === true ? { decoupled: true } : {}),
    },
  };
};

/** A second entry with the same key: named at the later one, pointing at the first. */
const duplicates = <T>(
  problems: Problems,
  list: readonly (T | undefined)[],
  keyOf: (entry: T) => string,
  pathOf: (index: number) => string,
  what: (entry: T) => string,
): void => {
  const first = new Map<string, number>();
  list.forEach((entry, index) => {
    if (entry === undefined) return;
    const key = keyOf(entry);
    const earlier = first.get(key);
    if (earlier === undefined) first.set(key, index);
    else problems.add(pathOf(index), `${what(entry)} is declared twice (first at ${pathOf(earlier)})`);
  });
};

/** A noun said inside one line: words, no line break. */
const oneLine = (value: string): string | undefined =>
  /^[^\r\n]{1,60}$/.test(value) ? undefined : 'must be at most 60 characters on one line';

/** `nouns`: how lines name the images and the workloads as a group; each optional. */
const parseNouns = (problems: Problems, value: unknown): ProfileNouns | undefined => {
  if (value === undefined) return undefined;
  if (!isFields(value)) {
    problems.add('nouns', `must be a mapping (images, workloads), not ${describeValue(value)}`);
    return undefined;
  }
  unknownFields(problems, 'nouns', value, NOUN_FIELDS);
  const images = optionalText(problems, 'nouns.images', value.images, oneLine);
  const workloads = optionalText(problems, 'nouns.workloads', value.workloads, oneLine);
  return { ...(images === undefined ? {} : { images }), ...(workloads === undefined ? {} : { workloads }) };
};

/**
 * Check a profile document (docs/profiles.md) — the value a YAML or JSON
 * parser made of the IMAGE_REFRESH_PROFILE file — and return the
 * {@link Profile} it describes, or every problem at once, each with its path
 * in the document. Refused, at least: a document that is not a mapping, a
 * field the profile does not know, duplicate image names or workload ids,
 * two entries for one workload object, a container mapped to an undeclared
 * image, an image no container runs, a gate that is not a declared workload
 * (or is decoupled), no images or no workloads, an annotation prefix that is
 * not a DNS subdomain or is reserved (`kubernetes.io`, `k8s.io` and their
 * subdomains), names that are not DNS-1123, an image name whose bookkeeping
 * key would be no valid annotation name, and a repository that is no
 * repository name. Pure.
 */
export const parseProfile = (document: unknown): E.Either<readonly ProfileProblem[], Profile> => {
  const problems = new Problems();
  if (document === undefined || document === null) {
    problems.add('profile', 'is empty: a profile names at least its annotationPrefix, gate, images and workloads');
    return E.left(problems.list);
  }
  if (!isFields(document)) {
    problems.add(
      'profile',
      `must be a mapping (annotationPrefix, gate, images, workloads), not ${describeValue(document)}`,
    );
    return E.left(problems.list);
  }
  unknownFields(problems, '', document, ROOT_FIELDS);
  const prefix = text(problems, 'annotationPrefix', document.annotationPrefix, annotationPrefix);
  const frozenHint = optionalText(problems, 'frozenHint', document.frozenHint);
  const release = optionalText(problems, 'release', document.release, objectName);
  const mirror = optionalText(problems, 'mirror', document.mirror, mirrorHost);
  const nouns = parseNouns(problems, document.nouns);
  const imageEntries = entries(problems, 'images', document.images, 'images').map((entry, index) =>
    parseImage(problems, `images[${index}]`, entry),
  );
  const images = imageEntries.map((entry) => entry.image);
  duplicates(
    problems,
    images,
    (i) => i.name,
    (index) => `images[${index}].name`,
    (i) => `image "${i.name}"`,
  );
  duplicates(
    problems,
    images,
    // The repository as Docker normalizes it (its shape was checked: it has one), with the image's own tag.
    (i) => JSON.stringify([repositoryName(i.repository), i.tag]),
    (index) => `images[${index}].repository`,
    (i) => `repository ${i.repository}${i.tag === undefined ? '' : `:${i.tag}`}`,
  );
  const declared = new Set(imageEntries.map((i) => i.name).filter((name) => name !== undefined));
  const workloadEntries = entries(problems, 'workloads', document.workloads, 'workloads').map((entry, index) =>
    parseWorkload(problems, `workloads[${index}]`, entry, declared),
  );
  const workloads = workloadEntries.map((entry) => entry.workload);
  duplicates(
    problems,
    workloads,
    (w) => w.id,
    (index) => `workloads[${index}].id`,
    (w) => `workload "${w.id}"`,
  );
  duplicates(
    problems,
    workloads,
    (w) => `${w.kind}/${w.namespace}/${w.name}`,
    (index) => `workloads[${index}].name`,
    (w) => `${w.kind} ${w.namespace}/${w.name}`,
  );
  const followed = new Set(workloadEntries.flatMap((w) => Object.values(w.containers ?? {})));
  images.forEach((image, index) => {
    if (image !== undefined && !followed.has(image.name)) {
      problems.add(
        `images[${index}]`,
        `"${image.name}" is run by no container: map it in a workload's containers, or remove it`,
      );
    }
  });
  const gate = text(problems, 'gate', document.gate);
  const gateWorkload = workloads.find((w) => w?.id === gate);
  // Unjudged when a workload entry is wrong: the gate may be that very entry.
  if (
    gate !== undefined &&
    gateWorkload === undefined &&
    workloads.length > 0 &&
    workloads.every((w) => w !== undefined)
  ) {
    const ids = workloads.map((w) => w.id);
    const near = closestName(gate, ids);
    problems.add(
      'gate',
      `"${gate}" is not a declared workload${near === undefined ? '' : ` (did you mean "${near}"?)`}; declared: ${ids.join(', ')}`,
    );
  }
  if (gateWorkload?.decoupled === true) {
    problems.add(
      `workloads[${workloads.indexOf(gateWorkload)}].decoupled`,
      'the gate cannot be decoupled: it is what an unsettled tick waits for',
    );
  }
  if (problems.list.length > 0 || prefix === undefined || gate === undefined) return E.left(problems.list);
  return E.right({
    annotationPrefix: prefix,
    gate,
    ...(frozenHint === undefined ? {} : { frozenHint }),
    ...(release === undefined ? {} : { release }),
    ...(mirror === undefined ? {} : { mirror }),
    ...(nouns === undefined ? {} : { nouns }),
    images: images.filter((i): i is ProfileImage => i !== undefined),
    workloads: workloads.filter((w): w is ProfileWorkload => w !== undefined),
  });
};
