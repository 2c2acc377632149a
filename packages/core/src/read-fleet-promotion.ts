import * as E from 'fp-ts/lib/Either.js';
import type { TickConfig } from './config/tick-config.js';
import type { Annotations } from './domain/bookkeeping.js';
import type { Promotion } from './domain/fleet-promotion.js';
import { transport } from './domain/port-error.js';
import { type PromotionReport, promotionKindOf, promotionReportOf } from './domain/promotion-admission.js';
import { activePromotionOf } from './domain/promotion-switch.js';
import {
  judgeSignedAnswer,
  signedDocumentJudged,
  signedDocumentRead,
  verifiedDocumentOf,
} from './domain/signed-document-reading.js';
import type { FleetPromotionPort } from './ports/fleet-promotion-port.js';
import type { RegistryPort } from './ports/registry-port.js';
import type { SignaturePort } from './ports/signature-port.js';

// The fleet promotion as a tick would judge it now (docs/fleet-promotion.md),
// for those who only look — `image-refresh status`: the same steps (the
// tag's HEAD, the kept document, else the document read and its signature
// checked) through the same ports, and nothing written.

/** What `readFleetPromotion` says: the tick's report of the promotion, and what it promotes. */
export interface FleetPromotionView extends PromotionReport {
  /** What this edge kept of the promotion it last verified (`<prefix>/fleet-promotion-digest`). */
  readonly recordedDigest: string | null;
  /** Every promotion of the verified document, expired ones included; null where none was verified. */
  readonly promotions: readonly Promotion[] | null;
}

/**
 * Judge the fleet promotion under FLEET_PROMOTION_REF now, as a tick of this
 * ring would, writing nothing; undefined when no promotion is read here
 * (unset, or ring 0). Every registry request is the ports' own (each bounded).
 */
export const readFleetPromotion = async (
  config: TickConfig,
  ports: {
    readonly registry: RegistryPort;
    readonly fleetPromotion?: FleetPromotionPort;
    readonly signatures?: SignaturePort;
  },
  annotations: Annotations,
  nowMs: number,
): Promise<FleetPromotionView | undefined> => {
  const promotion = activePromotionOf(config);
  if (promotion === undefined) return undefined;
  const kind = promotionKindOf(config.topology.keys);
  const [answer] = await ports.registry.resolveDigests([
    { host: promotion.host, repo: promotion.repo, tag: promotion.tag },
  ])();
  let reading = judgeSignedAnswer(kind, answer, annotations, nowMs);
  if (reading._tag === 'Fetching') {
    const target = { host: promotion.host, repo: promotion.repo, digest: reading.digest };
    const document =
      ports.fleetPromotion === undefined
        ? E.left(transport('no fleet promotion port to read it with'))
        : await ports.fleetPromotion.readDocument(target)();
    reading = signedDocumentRead(kind, reading, document, nowMs);
  }
  if (reading._tag === 'Read') {
    const target = { host: promotion.host, repo: promotion.repo, digest: reading.digest };
    const verdict =
      ports.signatures === undefined
        ? E.left(transport('no signature port to check it with'))
        : await ports.signatures.verify(target)();
    reading = signedDocumentJudged(kind, reading, verdict);
  }
  const report = promotionReportOf(config, reading);
  // Stryker disable next-line ConditionalExpression: a promotion is read here, so a report is always made
  if (report === undefined) return undefined;
  return {
    ...report,
    recordedDigest: annotations[config.topology.keys.fleetPromotionDigest] ?? null,
    promotions: verifiedDocumentOf(reading)?.promotions ?? null,
  };
};
