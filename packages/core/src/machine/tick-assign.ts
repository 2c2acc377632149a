import {
  type ActionFunction,
  type AnyEventObject,
  type Assigner,
  assign,
  type ParameterizedObject,
  type PropertyAssigner,
} from 'xstate';
import type { TickContext } from './tick-context.js';

// The phases define their guards and actions in their own files, apart from
// the one setup() that names them all (tick-setup.ts); these types give them
// the tick's context without it.

/** What a named guard reads: the context (an event's data comes in as params). */
export interface GuardArgs {
  readonly context: TickContext;
}

type Params = ParameterizedObject['params'] | undefined;

/** xstate's `assign`, typed for the tick's context, its params inferred from the assigner. */
export const tickAssign = <TParams extends Params = undefined>(
  assignment:
    | Assigner<TickContext, AnyEventObject, TParams, AnyEventObject, never>
    | PropertyAssigner<TickContext, AnyEventObject, TParams, AnyEventObject, never>,
): ActionFunction<TickContext, AnyEventObject, AnyEventObject, TParams, never, never, never, never, never> =>
  assign<TickContext, AnyEventObject, TParams, AnyEventObject, never>(assignment);
