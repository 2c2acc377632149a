import * as E from 'fp-ts/lib/Either.js';
import { describeProfileProblem, parseProfile } from '../../src/config/profile/parse-profile.js';
import type { Profile } from '../../src/config/profile/profile.js';
import { SHOP_PROFILE } from '../../src/sim/sim-shop.js';

// A profile document (docs/profiles.md) as the profile tests break it: the
// shop of the docs with one change, and what parseProfile makes of it.

/** A profile document as a YAML parser hands it over, loosely typed so a test can break any part of it. */
export interface Doc {
  [field: string]: unknown;
  images: Record<string, unknown>[];
  workloads: Record<string, unknown>[];
}

/** The shop of docs/profiles.md: a two-container web Deployment (the gate), a worker sharing its image, an agent DaemonSet. */
export const SHOP = structuredClone(SHOP_PROFILE) as unknown as Doc;

/** The shop with one change made by `edit`. */
export const shopWith = (edit: (doc: Doc) => void): Doc => {
  const doc = structuredClone(SHOP);
  edit(doc);
  return doc;
};

/** The problems of a document parseProfile refuses, as an operator reads them. */
export const problemsOf = (document: unknown): string[] => {
  const parsed = parseProfile(document);
  if (E.isRight(parsed)) throw new Error('expected the profile to be refused');
  return parsed.left.map(describeProfileProblem);
};

/** The profile of a document parseProfile accepts. */
export const accepted = (document: unknown): Profile => {
  const parsed = parseProfile(document);
  if (E.isLeft(parsed)) throw new Error(parsed.left.map(describeProfileProblem).join('\n'));
  return parsed.right;
};
