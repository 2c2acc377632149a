import * as E from 'fp-ts/lib/Either.js';
import * as O from 'fp-ts/lib/Option.js';
import { takesBasicNow } from './basic-auth.js';
import { exchange } from './http-exchange.js';
import type { RegistryClient } from './registry-client.js';
import { type BearerChallenge, bearerChallenge } from './www-authenticate.js';

// With credentials for a registry whose token realm is not known up front,
// the challenge is learned from `GET /v2/` (the distribution API's version
// check) rather than from an anonymous HEAD of the first repository: that
// HEAD would be answered 401 and asked again, so the first image cost two
// HEADs. With the ping a steady tick on a private registry costs one token
// request (none with Basic) and one HEAD per image (docs/behaviour.md §3.3,
// "Credentials"). Without credentials the HEAD stays the probe: on an
// anonymous registry it is the first image's answer.

export type PingOutcome =
  /** 401 with a Bearer challenge: a token from its realm, then the HEADs. */
  | { readonly _tag: 'Bearer'; readonly challenge: BearerChallenge }
  /** 401 asking for Basic (the client now sends it): the HEADs go at once. */
  | { readonly _tag: 'Ready' }
  /**
   * Anything else — a 200 included: an open /v2/ says nothing of the
   * manifests, which may still want a token the probe then learns for the
   * whole batch — or a failure: the HEAD probe decides, as without credentials.
   */
  | { readonly _tag: 'Undecided' };

export const pingApi = async (client: RegistryClient): Promise<PingOutcome> => {
  const result = await exchange(client, 'GET', new URL('v2/', client.baseUrl), {}, 0);
  if (E.isLeft(result)) return { _tag: 'Undecided' };
  const { status, headers } = result.right;
  if (status !== 401) return { _tag: 'Undecided' };
  const sent = headers.get('www-authenticate');
  const challenge = bearerChallenge(sent);
  if (O.isSome(challenge)) return { _tag: 'Bearer', challenge: challenge.value };
  return takesBasicNow(client, sent) ? { _tag: 'Ready' } : { _tag: 'Undecided' };
};
