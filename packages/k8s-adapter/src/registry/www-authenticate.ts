import * as O from 'fp-ts/lib/Option.js';

// RFC 7235 challenges, parsed by hand because the registry chooses the auth
// host (realm, service and scope come from the 401 when the realm is not
// known beforehand, docs/behaviour.md §3.3). Quoted values may hold commas, `=` and
// backslash escapes; several challenges may share one header (fetch joins
// repeated WWW-Authenticate headers with ", ").

export interface Challenge {
  /** Lower-cased: schemes are case-insensitive. */
  readonly scheme: string;
  /** Parameter names lower-cased; values as sent, unquoted. */
  readonly params: Readonly<Record<string, string>>;
}

export interface BearerChallenge {
  readonly realm: URL;
  readonly service: O.Option<string>;
  readonly scope: O.Option<string>;
  /** `insufficient_scope`, `invalid_token`, … on a 401 after a token was sent. */
  readonly error: O.Option<string>;
}

const TCHAR = /[!#$%&'*+.^_`|~0-9A-Za-z-]/;
const WHITESPACE = /[ \t]/;

export const parseChallenges = (header: string): Challenge[] => {
  const challenges: { scheme: string; params: Record<string, string> }[] = [];
  let i = 0;
  const skip = (pattern: RegExp): void => {
    while (i < header.length && pattern.test(header.charAt(i))) i += 1;
  };
  const token = (): string => {
    const start = i;
    while (i < header.length && TCHAR.test(header.charAt(i))) i += 1;
    return header.slice(start, i);
  };
  // RFC 7235 allows only a token unquoted, but a realm or scope sent bare
  // (`scope=repository:r:pull`) is common enough: read to the next comma.
  const bare = (): string => {
    const start = i;
    while (i < header.length && !/[ \t,]/.test(header.charAt(i))) i += 1;
    return header.slice(start, i);
  };
  const quoted = (): string => {
    let value = '';
    i += 1; // opening quote
    while (i < header.length && header.charAt(i) !== '"') {
      if (header.charAt(i) === '\\' && i + 1 < header.length) i += 1;
      value += header.charAt(i);
      i += 1;
    }
    i += 1; // closing quote (or end of an unterminated string)
    return value;
  };

  while (i < header.length) {
    skip(/[ \t,]/);
    if (i >= header.length) break;
    const name = token();
    if (name === '') {
      i += 1; // a stray character: skip it rather than give up on the rest
      continue;
    }
    skip(WHITESPACE);
    const current = challenges.at(-1);
    if (header.charAt(i) === '=' && current !== undefined) {
      i += 1;
      skip(WHITESPACE);
      const value = header.charAt(i) === '"' ? quoted() : bare();
      current.params[name.toLowerCase()] = value;
    } else {
      challenges.push({ scheme: name.toLowerCase(), params: {} });
    }
  }
  return challenges;
};

const httpUrl = (value: string): O.Option<URL> => {
  if (!URL.canParse(value)) return O.none;
  const url = new URL(value);
  return url.protocol === 'https:' || url.protocol === 'http:' ? O.some(url) : O.none;
};

/** The first Bearer challenge whose realm is an http(s) URL, if any. */
export const bearerChallenge = (header: string | null): O.Option<BearerChallenge> => {
  for (const { scheme, params } of parseChallenges(header ?? '')) {
    if (scheme !== 'bearer' || params.realm === undefined) continue;
    const realm = httpUrl(params.realm);
    if (O.isSome(realm)) {
      return O.some({
        realm: realm.value,
        service: O.fromNullable(params.service),
        scope: O.fromNullable(params.scope),
        error: O.fromNullable(params.error),
      });
    }
  }
  return O.none;
};

/** True when the registry offers HTTP Basic (distribution's htpasswd auth, some proxies). */
export const isBasicChallenge = (header: string | null): boolean =>
  parseChallenges(header ?? '').some(({ scheme }) => scheme === 'basic');
