import type { TickConfig } from '../../src/config/tick-config.js';
import { isHaltedDigest } from '../../src/domain/fleet-halt.js';
import { SIM_HALT_REPO } from '../../src/sim/index.js';
import { ANNOTATION, IMAGES } from '../support/chart.js';
import {
  attemptBefore,
  everyRolloutCompleted,
  type HaltTick,
  inForce,
  pinnedBack,
  setImagesOf,
} from './fleet-halt-truth.js';

// The fleet halt's invariants (docs/behaviour.md §4, I36–I39; I35 is checked
// on every tick of the main suite, whose edges do not watch a halt), each
// answered from the world around a tick and the calls it made. As in
// invariants.ts: an id, one sentence, its source, the ticks it speaks about
// (counted: none may hold vacuously) and how a tick breaks it.

export interface HaltInvariant {
  readonly id: string;
  readonly says: string;
  readonly appliesTo: (t: HaltTick, config: TickConfig) => boolean;
  readonly violation: (t: HaltTick, config: TickConfig) => string | undefined;
}

const FLEET_HALT_KEYS = [ANNOTATION.fleetHaltDigest, ANNOTATION.fleetHaltDocument];

/** The tick read its records, so it judged the halt it asked (a tick whose record read failed ended before). */
const judged = (t: HaltTick): boolean =>
  t.truth._tag !== 'NotAsked' && t.outcome.result !== 'recordedDigestsUnreadable';

/** The records this tick changed, image by image. */
const recordsChanged = (t: HaltTick) =>
  IMAGES.flatMap((image) => {
    const before = t.before.annotations[image.recordKey];
    const after = t.afterAnnotations[image.recordKey];
    return after !== before && after !== undefined ? [{ image, before, after }] : [];
  });

const wrote = (t: HaltTick, change: string): number =>
  t.calls.findIndex((c) => c.op === 'patchBookkeeping' && c.outcome === 'ok' && c.detail.split(' ').includes(change));

export const HALT_INVARIANTS: readonly HaltInvariant[] = [
  {
    id: 'I36',
    says: 'Under a verified, unexpired fleet halt no set image (re-image, live re-pin or rollback) moves a container to a digest the halt names for its repository, and no record write makes one the recorded digest.',
    appliesTo: (t) => inForce(t) !== undefined,
    violation: (t) => {
      const halt = inForce(t);
      if (halt === undefined) return undefined;
      for (const set of setImagesOf(t.calls)) {
        const halted = set.images.find((i) => isHaltedDigest(halt, i.repo, i.digest));
        if (halted !== undefined)
          return `set ${set.workload} ${halted.container}=${halted.image}, which the halt names`;
      }
      const recorded = recordsChanged(t).find((r) => isHaltedDigest(halt, r.image.repo, r.after));
      return recorded === undefined ? undefined : `recorded ${recorded.image.recordKey}=${recorded.after}`;
    },
  },
  {
    id: 'I37',
    says: 'A fleet halt that cannot be verified (its tag unreadable other than 404, its document unreadable or unparsable, its signature not verified) means no set image and no changed record that tick, exit 1 and a FLEET HALT UNVERIFIED line.',
    appliesTo: (t) => judged(t) && t.truth._tag === 'Unverifiable',
    violation: (t) => {
      const set = setImagesOf(t.calls)[0];
      if (set !== undefined) return `set images on ${set.workload}`;
      const changed = recordsChanged(t)[0];
      if (changed !== undefined) return `recorded ${changed.image.recordKey}=${changed.after}`;
      if (t.outcome.exitCode !== 1) return `exit ${t.outcome.exitCode}`;
      const said = t.outcome.events.some((e) => e.code === 'FLEET_HALT_UNVERIFIED' && e.level === 'error');
      return said ? undefined : 'no FLEET HALT UNVERIFIED finding';
    },
  },
  {
    id: 'I38',
    says: "A set image to a halt's pin is a re-image like any other: its signature verified that tick before it, refresh-attempt = previous+1 written before it (I9), recorded only once every rollout completed (I7, I12), never onto a quarantined digest (I30), and under revert a failed one leaves every container it set on its record or says ROLLBACK FAILED (I29).",
    appliesTo: (t) => {
      const halt = inForce(t);
      return (
        halt !== undefined &&
        pinnedBack(t, halt).some(({ pin, image }) =>
          setImagesOf(t.calls).some((s) => s.images.some((i) => i.repo === image.repo && i.digest === pin)),
        )
      );
    },
    violation: (t, config) => {
      const halt = inForce(t);
      if (halt === undefined) return undefined;
      const attempt = wrote(t, `${ANNOTATION.refreshAttempt}=${attemptBefore(t) + 1}`);
      for (const { image, pin } of pinnedBack(t, halt)) {
        const set = setImagesOf(t.calls).find((s) => s.images.some((i) => i.repo === image.repo && i.digest === pin));
        if (set === undefined) continue;
        const verified = t.calls.findIndex(
          (c) => c.op === 'verifySignature' && c.detail === `${image.repo}@${pin}` && c.outcome === 'Verified',
        );
        if (verified < 0 || verified > set.index) return `set the pin ${image.repo}@${pin} without a Verified check`;
        if (attempt < 0 || attempt > set.index) return `set the pin ${image.repo}@${pin} without refresh-attempt+1`;
        if (t.before.annotations[image.quarantineKey] === pin) return `set the quarantined pin ${pin}`;
        const recorded = t.afterAnnotations[image.recordKey] === pin && t.before.annotations[image.recordKey] !== pin;
        if (recorded && !everyRolloutCompleted(t.calls))
          return `recorded the pin ${pin} before every rollout completed`;
      }
      if (
        config.onRolloutFailure === 'revert' &&
        !everyRolloutCompleted(t.calls) &&
        t.outcome.result !== 'rollbackFailed'
      ) {
        for (const set of setImagesOf(t.calls).filter((s) => s.outcome === 'ok' || s.outcome === 'unchanged')) {
          for (const i of set.images) {
            const record = t.afterAnnotations[IMAGES.find((x) => x.repo === i.repo)?.recordKey ?? ''];
            const runs = t.afterImages[set.workload]?.[i.container];
            if (runs !== `docker.io/${i.repo}@${record}`) return `${set.workload} ${i.container} left on ${runs}`;
          }
        }
      }
      return undefined;
    },
  },
  {
    id: 'I39',
    says: 'A halt digest this edge verified before (its document kept beside it) costs nothing but its HEAD: no document read, no signature check, no halt write. A 404 where a halt was recorded lifts it: its record is removed.',
    appliesTo: (t) =>
      judged(t) &&
      ((t.truth._tag === 'Verified' && t.truth.kept) ||
        (t.truth._tag === 'None' && FLEET_HALT_KEYS.some((k) => t.before.annotations[k] !== undefined))),
    violation: (t) => {
      if (t.truth._tag === 'None') {
        // Every key of the record, removed in one write (which may itself fail: a WARN, retried next tick).
        const present = FLEET_HALT_KEYS.filter((k) => t.before.annotations[k] !== undefined);
        const lifted = t.calls.some(
          (c) => c.op === 'patchBookkeeping' && present.every((k) => c.detail.split(' ').includes(`${k}-`)),
        );
        return lifted ? undefined : `a lifted halt kept its record (${present.join(', ')})`;
      }
      const more = t.calls.find(
        (c) =>
          c.op === 'readFleetHalt' ||
          (c.op === 'verifySignature' && c.detail.startsWith(`${SIM_HALT_REPO}@`)) ||
          (c.op === 'patchBookkeeping' && c.detail.includes('tracebloc.io/fleet-halt-')),
      );
      return more === undefined ? undefined : `a known halt cost ${more.op} ${more.detail.slice(0, 80)}`;
    },
  },
];
