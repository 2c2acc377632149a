import { readFileSync } from 'node:fs';
import {
  type FleetPromotion,
  INTERRUPTED_EXIT,
  MAX_HALT_BYTES,
  MAX_PROMOTION_BYTES,
  parseFleetHalt,
  parseFleetPromotion,
  renderFleetHalt,
  renderFleetPromotion,
  type TickInterrupt,
  withPromotion,
} from '@image-refresh/core';
import * as E from 'fp-ts/lib/Either.js';
import { edgesQuery, evidenceOf, imageQuery } from '../promote/evidence-queries.js';
import { type PrometheusError, queryPrometheus, withoutCredentials } from '../promote/prometheus-client.js';
import {
  type CredentialsFile,
  type PromoteFlags,
  type PromoteOptions,
  promoteOptionsOf,
} from '../promote/promote-options.js';
import {
  haltDraft,
  promotionEntry,
  publishLines,
  rollbackLines,
  tableLines,
  verdictJson,
  type Written,
} from '../promote/promote-render.js';
import { shortDigest, type Verdict, verdictOf } from '../promote/verdict.js';
import type { CommandResult, Output } from './command.js';
import { writeAtomically } from './write-atomically.js';

// `image-refresh promote` (docs/fleet-promotion.md, "The verdict"): run by CI
// or an operator, never on an edge. It asks Prometheus what the edges of
// rings < N pushed about one image's digest, says per edge what that
// evidence says, and — only when it promotes — writes the promotion document
// the edges of rings 1..N read (or, with --halt-on-rollback, the fleet halt
// of a digest a canary rolled back). Exit 0 promote, 1 no, 3 no evidence to
// judge by, 2 its own usage errors.

const PREFIX = '[image-refresh]';

/** The published promotion --from names, or why it is not one (a usage error: exit 2). */
const readFrom = (file: string, nowMs: number): E.Either<string, FleetPromotion> => {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    return E.left(`--from ${file}: cannot read it: ${(error as Error).message}`);
  }
  const parsed = parseFleetPromotion(text, nowMs);
  return E.isLeft(parsed) ? E.left(`--from ${file}: not a promotion document: ${parsed.left}`) : parsed;
};

/** A credential: one line of visible ASCII, as a header carries it (a control character would end up in an error line). */
const HEADER_SAFE = /^[\x20-\x7e]+$/;

/**
 * The Authorization a credentials file gives (docs/fleet-promotion.md, "The
 * verdict"), or why it gives none (a usage error: exit 2). A line names the
 * flag and the file, never what is in it.
 */
const authorizationOf = (credentials: CredentialsFile): E.Either<string, string> => {
  const { flag, file } = credentials;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    // fs's message names the file and the errno, never its contents.
    return E.left(`${flag} ${file}: cannot read it: ${(error as Error).message}`);
  }
  const secret = text.trim();
  if (secret === '') return E.left(`${flag} ${file}: it is empty`);
  if (flag === '--bearer-token-file')
    return HEADER_SAFE.test(secret) && !secret.includes(' ')
      ? E.right(`Bearer ${secret}`)
      : E.left(`${flag} ${file}: not a token on one line`);
  return HEADER_SAFE.test(secret) && secret.indexOf(':') > 0
    ? E.right(`Basic ${Buffer.from(secret).toString('base64')}`)
    : E.left(`${flag} ${file}: not user:password on one line`);
};

const exitOfInterrupt = (reason: unknown): number => {
  const signal = (reason as Partial<TickInterrupt> | undefined)?.signal;
  return signal === 'SIGINT' || signal === 'SIGTERM' ? INTERRUPTED_EXIT[signal] : INTERRUPTED_EXIT.SIGTERM;
};

/** Why nothing goes to --out: the verdict wrote nothing (its exit stands), or a document that cannot be written (exit 1). */
interface NotWritten {
  readonly line: string;
  readonly failed: boolean;
}

/**
 * What --out receives for this verdict, checked by the parser the edges use
 * and against the bytes an edge reads of it (docs/fleet-promotion.md,
 * "--from and --out": a larger document is one every edge refuses, which
 * holds every change); or why nothing.
 */
const document = (
  verdict: Verdict,
  options: PromoteOptions,
  from: FleetPromotion | undefined,
  nowMs: number,
): E.Either<NotWritten, { text: string; kind: Written['kind']; said: string }> => {
  const failed = (line: string): E.Either<NotWritten, never> => E.left({ line, failed: true });
  if (verdict.outcome === 'promote') {
    const entry = promotionEntry(verdict, options, nowMs);
    const promotions = withPromotion(from?.promotions ?? [], entry, nowMs);
    const text = renderFleetPromotion(promotions);
    const bytes = Buffer.byteLength(text, 'utf8');
    if (bytes > MAX_PROMOTION_BYTES)
      return failed(
        `not written: the promotion document would be ${bytes} bytes (${promotions.length} promotion(s)), more than the ${MAX_PROMOTION_BYTES} bytes an edge reads; prune it: a shorter --expires, or a --from without superseded entries`,
      );
    const checked = parseFleetPromotion(text, nowMs);
    if (E.isLeft(checked)) return failed(`the edges would refuse this promotion: ${checked.left}`);
    return E.right({
      text,
      kind: 'promotion',
      said: `${options.image}@${shortDigest(options.digest)}… opens rings 1..${options.ring} until ${entry.expires} (${checked.right.promotions.length} promotion(s) in the document)`,
    });
  }
  const halt = options.haltOnRollback ? haltDraft(verdict, options) : undefined;
  if (halt === undefined)
    return E.left({ line: `nothing written: the verdict is ${verdict.outcome}, not promote`, failed: false });
  const text = renderFleetHalt(halt);
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > MAX_HALT_BYTES)
    return failed(
      `not written: the fleet halt would be ${bytes} bytes (${Object.keys(halt.repositories).length} repositories), more than the ${MAX_HALT_BYTES} bytes an edge reads; write fewer repositories per halt with halt render`,
    );
  const checked = parseFleetHalt(text, nowMs);
  if (E.isLeft(checked)) return failed(`the edges would refuse this halt: ${checked.left}`);
  return E.right({
    text,
    kind: 'halt',
    said: `halts ${Object.keys(checked.right.repositories).join(', ')} until ${checked.right.expires} (${checked.right.reason})`,
  });
};

export const promote = async (
  flags: PromoteFlags,
  nowMs: number,
  interrupt: AbortSignal | undefined,
  out: Output,
): Promise<CommandResult> => {
  const say = (line: string): void => out.stdout(withoutCredentials(line));
  const complain = (line: string): void => out.stderr(withoutCredentials(`${PREFIX} ERROR: promote: ${line}`));
  const options = promoteOptionsOf(flags, nowMs);
  if (E.isLeft(options)) {
    for (const problem of options.left) complain(problem);
    return { exitCode: 2 };
  }
  const authorization =
    options.right.credentials === undefined ? undefined : authorizationOf(options.right.credentials);
  if (authorization !== undefined && E.isLeft(authorization)) {
    complain(authorization.left);
    return { exitCode: 2 };
  }
  const o: PromoteOptions = {
    ...options.right,
    prometheus: { ...options.right.prometheus, authorization: authorization?.right },
  };
  const from = o.from === undefined ? undefined : readFrom(o.from, nowMs);
  if (from !== undefined && E.isLeft(from)) {
    complain(from.left);
    return { exitCode: 2 };
  }

  const query = { timeoutMs: o.timeoutMs, interrupt, timeSeconds: nowMs / 1_000 };
  const [edges, image] = await Promise.all([
    queryPrometheus(o.prometheus, edgesQuery(o.forMs), query),
    queryPrometheus(o.prometheus, imageQuery(o.image, o.digest, o.forMs), query),
  ]);
  if (E.isLeft(edges) || E.isLeft(image)) {
    const errors = [edges, image].flatMap((answer): PrometheusError[] => (E.isLeft(answer) ? [answer.left] : []));
    const error = errors.find((e) => e.kind === 'Interrupted') ?? (errors[0] as PrometheusError);
    const exitCode = error.kind === 'Interrupted' ? exitOfInterrupt(error.reason) : 3;
    if (o.json) say(verdictJson(o, nowMs, { error, exitCode }));
    complain(`no evidence: Prometheus ${o.prometheus.url}: ${error.kind}: ${error.message}`);
    return { exitCode };
  }

  const verdict = verdictOf(evidenceOf(edges.right, image.right), {
    image: o.image,
    digest: o.digest,
    ring: o.ring,
    forMs: o.forMs,
    minEdges: o.minEdges,
    nowMs,
  });
  // --json keeps stdout one JSON object: everything else goes to stderr.
  const aside = o.json ? (line: string) => out.stderr(withoutCredentials(line)) : say;
  if (!o.json) {
    say(`promote ${o.image}@${shortDigest(o.digest)}… to ring ${o.ring}: ${verdict.summary}`);
    for (const line of tableLines(verdict, nowMs)) say(line);
    for (const line of rollbackLines(verdict, o.digest)) say(line);
    if (verdict.higherRings > 0) say(`${verdict.higherRings} grouping(s) of rings >= ${o.ring}: not asked`);
  }

  let written: Written | undefined;
  let exitCode: number = verdict.exitCode;
  if (o.out !== undefined) {
    const toWrite = document(verdict, o, from?.right, nowMs);
    if (E.isLeft(toWrite) && toWrite.left.failed) {
      complain(`${o.out}: ${toWrite.left.line}`);
      exitCode = 1;
    } else if (E.isLeft(toWrite)) aside(`${o.out}: ${toWrite.left.line}`);
    else {
      const wrote = writeAtomically(o.out, toWrite.right.text);
      if (E.isLeft(wrote)) {
        complain(wrote.left);
        exitCode = 1;
      } else {
        written = { file: o.out, kind: toWrite.right.kind };
        aside(`wrote ${o.out}: ${toWrite.right.said}`);
        for (const line of publishLines(o.out, toWrite.right.kind)) aside(line);
      }
    }
  }
  if (o.json) say(verdictJson(o, nowMs, { verdict, written, exitCode }));
  return { exitCode };
};
