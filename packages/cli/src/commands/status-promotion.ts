import {
  type FleetPromotionView,
  promotedRing,
  readFleetPromotion,
  shortDigest,
  type TickConfig,
} from '@image-refresh/core';
import type { Connection } from '../connection.js';
import type { SignatureTrust } from '../wiring/signature-trust.js';

// `status` and `status --json` on the fleet promotion (FLEET_PROMOTION_REF on
// ring ≥ 1, docs/fleet-promotion.md): judged now as a tick would — the tag's
// HEAD, the document this edge kept, else the document read and its
// signature checked — and nothing written; and each drifted image's change,
// promoted for this ring or waiting. Not read here, nothing is said.

/** A drifted image's change, and whether a verified promotion opens this ring to it now. */
export interface PromotionWait {
  readonly image: string;
  readonly digest: string;
  readonly promoted: boolean;
}

export type StatusPromotion = (
  | FleetPromotionView
  | { readonly state: 'notAsked'; readonly reference: string; readonly recordedDigest: string | null }
) & { readonly ring: number; readonly changes: readonly PromotionWait[] };

/** The promotion now; undefined when none is read here; `notAsked` under --no-registry. */
export const readPromotionForStatus = async (
  connection: Connection,
  config: TickConfig,
  trust: SignatureTrust | undefined,
  annotations: Readonly<Record<string, string>>,
  drifted: readonly { readonly image: string; readonly digest: string }[],
  noRegistry: boolean,
  nowMs: number,
): Promise<StatusPromotion | undefined> => {
  const promotion = config.rolloutRing >= 1 ? config.fleetPromotion : undefined;
  if (promotion === undefined) return undefined;
  const ring = config.rolloutRing;
  if (noRegistry) {
    return {
      state: 'notAsked',
      reference: promotion.reference,
      recordedDigest: annotations[config.topology.keys.fleetPromotionDigest] ?? null,
      ring,
      changes: [],
    };
  }
  const ports = connection.ports({
    onProgress: () => undefined,
    onRateLimit: () => undefined,
    ...(trust === undefined ? {} : { signatureTrust: trust }),
  });
  const view = await readFleetPromotion(config, ports, annotations, nowMs);
  // Stryker disable next-line ConditionalExpression: a promotion is read on this ring, so a view is always made
  if (view === undefined) return undefined;
  const document = view.state === 'verified' ? { promotions: view.promotions ?? [] } : undefined;
  const changes = drifted.map(({ image, digest }) => ({
    image,
    digest,
    promoted: document !== undefined && promotedRing(document, image, digest, nowMs) >= ring,
  }));
  return { ...view, ring, changes };
};

/** `status`'s lines of the promotion: its state, then each drifted image's change, promoted or waiting. */
export const promotionLines = (p: StatusPromotion): string[] => {
  const head = (() => {
    switch (p.state) {
      case 'notAsked':
        return `${p.reference}: not asked (--no-registry)${p.recordedDigest === null ? '' : `; last verified here: ${shortDigest(p.recordedDigest)}`}`;
      case 'none':
        return `${p.reference}: none published (404): ring ${p.ring} waits for one`;
      case 'withdrawn':
        return `${p.reference}: none published (404); the next tick removes the record of ${shortDigest(p.digest ?? '')}`;
      case 'unverified':
        return `${p.reference}: UNVERIFIED: ${p.why}; a tick acts on no changed digest while this holds`;
      case 'verified':
        return `${p.reference}@${shortDigest(p.digest ?? '')}: verified, ${(p.promotions ?? []).length} promotion(s)${p.digest === p.recordedDigest ? '' : ' (verified now; a tick keeps it)'}`;
    }
  })();
  return [
    head,
    ...p.changes.map((c) =>
      c.promoted
        ? `  ${c.image}@${c.digest}: promoted to ring ${p.ring} or beyond`
        : `  waiting for promotion of ${c.image}@${c.digest} to ring ${p.ring}`,
    ),
  ];
};

/** `status --json`'s `promotion`: null when none is read here; absent fields null. */
export const promotionJson = (p: StatusPromotion | undefined) => {
  if (p === undefined) return null;
  if (p.state === 'notAsked') return { ...p, digest: null, why: null, promotions: null };
  return {
    ...p,
    promotions:
      p.promotions === null
        ? null
        : p.promotions.map(({ image, digest, ring, expires, evidence }) => ({
            image,
            digest,
            ring,
            expires,
            evidence,
          })),
  };
};
