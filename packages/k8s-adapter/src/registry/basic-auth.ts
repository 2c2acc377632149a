import * as O from 'fp-ts/lib/Option.js';
import { basicAuthorization } from './credentials.js';
import type { RegistryClient } from './registry-client.js';
import { isBasicChallenge } from './www-authenticate.js';

// A registry that answers with a Basic challenge (distribution's htpasswd) is
// asked again once with its host's credential, and from then on at once —
// the same for a manifest HEAD and a signature, halt or platform read
// (docs/behaviour.md §3.3, "Credentials"). The credential is only ever there
// over https (registry-client.ts).

/** `Authorization: Basic …` once this registry asked for Basic; none before, or without a credential for its host. */
export const basicOnceAsked = (client: RegistryClient): O.Option<string> =>
  client.basic.wantsBasic ? O.map(basicAuthorization)(client.credential) : O.none;

/**
 * True when a 401 offering Basic should be asked again with the credential:
 * there is one for this host and it was not sent yet. Remembers that this
 * registry wants Basic, so a second Basic challenge is an answer, not a retry.
 */
export const takesBasicNow = (client: RegistryClient, challenge: string | null): boolean => {
  if (client.basic.wantsBasic || O.isNone(client.credential) || !isBasicChallenge(challenge)) return false;
  client.basic.wantsBasic = true;
  return true;
};
