import type { AnyStateMachine } from 'xstate';

// The tick machine as a Mermaid state diagram, generated from the machine
// definition itself so the published picture cannot drift from the code
// (the machine reads like its diagram). Walks machine.root: xstate's own graph helpers drop `always`
// edges (@xstate/graph's toDirectedGraph), which carry half of this machine's decisions.

interface NodeLike {
  readonly key: string;
  readonly path: readonly string[];
  readonly type: string;
  readonly states: Readonly<Record<string, NodeLike>>;
  readonly config: { readonly initial?: unknown };
  readonly invoke: readonly { readonly src: unknown }[];
  readonly transitions: ReadonlyMap<string, readonly TransitionLike[]>;
  readonly always?: readonly TransitionLike[] | undefined;
}

interface TransitionLike {
  readonly guard?: unknown;
  readonly target?: readonly { readonly path: readonly string[] }[] | undefined;
}

const idOf = (path: readonly string[]): string => path.join('_');

const guardName = (guard: unknown): string | undefined => {
  if (typeof guard === 'string') return guard;
  if (typeof guard === 'object' && guard !== null && typeof (guard as { type?: unknown }).type === 'string') {
    return (guard as { type: string }).type;
  }
  return undefined;
};

const trigger = (eventType: string): string => {
  if (eventType.startsWith('xstate.done.actor.')) return 'done';
  if (eventType.startsWith('xstate.error.actor.')) return 'error';
  return eventType;
};

/** A transition into a compound state lands in its initial child. */
const landing = (machine: NodeLike, path: readonly string[]): readonly string[] => {
  let node: NodeLike | undefined = machine;
  for (const key of path) node = node?.states[key];
  const initial = node?.config.initial;
  return typeof initial === 'string' ? landing(machine, [...path, initial]) : path;
};

const leaves = (node: NodeLike): NodeLike[] =>
  node.type === 'compound' ? Object.values(node.states).flatMap(leaves) : [node];

// Flat on purpose: Mermaid refuses transitions between states of different
// composite states, and this machine's failures all leave their step for a
// top-level final state. A step's group shows in its label instead.
const stateLine = (node: NodeLike): string => {
  const invoked = node.invoke.map((i) => String(i.src));
  const label = `${node.path.join(' / ')}${invoked.length > 0 ? ` (${invoked.join(', ')})` : ''}`;
  return `  state "${label}" as ${idOf(node.path)}`;
};

const edgesOf = (root: NodeLike, node: NodeLike): string[] => {
  const from = idOf(node.path);
  const lines: string[] = [];
  const add = (t: TransitionLike, on: string | undefined) => {
    const guard = guardName(t.guard);
    const label = [on, guard === undefined ? undefined : `[${guard}]`].filter((x) => x !== undefined).join(' ');
    for (const target of t.target ?? []) {
      lines.push(`  ${from} --> ${idOf(landing(root, target.path))}${label === '' ? '' : `: ${label}`}`);
    }
  };
  for (const t of node.always ?? []) add(t, undefined);
  for (const [eventType, transitions] of node.transitions) for (const t of transitions) add(t, trigger(eventType));
  if (node.type === 'final') lines.push(`  ${from} --> [*]`);
  return lines;
};

/**
 * `stateDiagram-v2` Mermaid text for a machine — for `tickMachine`, every
 * step, guard and invoked port call of the tick, generated from the machine
 * itself so a published picture cannot drift from the code. Deterministic:
 * the same machine gives the same text. Compound states are flattened into
 * `parent / child` labels (Mermaid cannot draw edges across composites).
 */
export const mermaidDiagram = (machine: AnyStateMachine): string => {
  const root = machine.root as unknown as NodeLike;
  const steps = leaves(root);
  return [
    'stateDiagram-v2',
    `  [*] --> ${idOf(landing(root, []))}`,
    ...steps.map(stateLine),
    ...steps.flatMap((step) => edgesOf(root, step)),
  ].join('\n');
};
