import type { Either } from 'fp-ts/lib/Either.js';
import type { FleetHaltDocument } from '../../domain/fleet-halt.js';
import {
  haltDocumentRead,
  haltSignatureJudged,
  haltStepFailed,
  isHaltLifted,
  judgeHaltAnswer,
} from '../../domain/fleet-halt-reading.js';
import type { PortError, RegistryError } from '../../domain/port-error.js';
import type { SignatureAnswers } from '../tick-actors.js';
import { tickAssign } from '../tick-assign.js';
import { said } from '../tick-context.js';
import * as say from './messages.js';

// The fleet halt phase's named actions (docs/behaviour.md §3.4b): each step's
// answer judged into the reading (domain/fleet-halt-reading.ts), and the
// verdict said once, on the way out.

export const fleetHaltActions = {
  /** The HEAD's answer against what this edge recorded, at the tick's clock. */
  judgeHaltAnswer: tickAssign(({ context }, params: { nowMs: number }) => {
    const reading = judgeHaltAnswer(
      context.config.topology.keys,
      context.resolve.haltAnswer,
      context.resolve.bookkeeping,
      params.nowMs,
    );
    return {
      halt: { reading, nowMs: params.nowMs },
      ...(reading._tag === 'Fetching'
        ? { events: said(context, say.haltReading(context.config, reading.digest, reading.note)) }
        : {}),
    };
  }),
  /** A step that could not be taken: the halt is unverified (fail closed, I37). */
  failHaltClosed: tickAssign(({ context }, params: { step: 'clock' | 'document' | 'signature'; error: PortError }) => ({
    halt: { ...context.halt, reading: haltStepFailed(params.step, params.error) },
  })),
  rememberHaltDocument: tickAssign(({ context }, params: { answer: Either<RegistryError, FleetHaltDocument> }) => ({
    halt: {
      ...context.halt,
      reading: haltDocumentRead(context.halt.reading, params.answer, context.halt.nowMs),
    },
  })),
  judgeHaltSignature: tickAssign(({ context }, params: { answers: SignatureAnswers }) => ({
    halt: { ...context.halt, reading: haltSignatureJudged(context.halt.reading, params.answers[0]) },
  })),
  /** The verdict, said once per tick: in force, expired, unverified, lifted or none. */
  announceFleetHalt: tickAssign(({ context }) => ({
    events: said(context, ...say.haltVerdictLines(context.config, context.halt.reading, context.halt.nowMs)),
  })),
  warnHaltWriteFailed: tickAssign(({ context }, params: { error: PortError }) => ({
    events: said(context, say.haltWriteFailed(context.config, isHaltLifted(context.halt.reading), params.error)),
  })),
};
