import { type ActorLogic, type AnyStateMachine, createActor, type InspectionEvent, setup, toPromise } from 'xstate';
import { runTick } from '../src/index.js';
import { provideTickPorts } from '../src/run-tick.js';
import { SimWorld, simPorts } from '../src/sim/index.js';
import { type BenchCase, benchConfig as config, reimageTick, steadyTick } from './sim-cases.js';

// `pnpm bench:floor`: what xstate alone costs for the path a tick takes, on
// this machine, now. It counts a steady and a re-image tick's port calls and
// transitions through xstate's inspection API, builds a flat machine of that
// shape that decides nothing — one invoked actor per port call, answered at
// once, then one eventless transition per remaining step, no guard, no action
// — and folds the tick and that machine in the same process, alternately
// (the ticks of bench/sim-cases.ts, which `pnpm bench` folds too).
// The floor leaves out the tick's assigns and its nesting, so it is lower than
// what xstate spends on the tick: a speed goal above it cannot be met without
// a machine that takes fewer steps (README.md, Benchmarks).

interface Shape {
  readonly portCalls: number;
  readonly transitions: number;
}

/** Run one tick of a case as an inspected actor: how many port calls and transitions it took. */
const shapeOf = async ({ reset }: BenchCase): Promise<Shape> => {
  const world = new SimWorld(config);
  reset(world);
  return inspectedRun(provideTickPorts(simPorts(world), config), config);
};

/** Count the invoked actors a run starts and the microsteps it takes. */
const inspectedRun = async (machine: AnyStateMachine, input: unknown): Promise<Shape> => {
  let actors = 0;
  let transitions = 0;
  const inspect = (event: InspectionEvent) => {
    if (event.type === '@xstate.actor') actors += 1;
    if (event.type === '@xstate.microstep') transitions += 1;
  };
  await toPromise(createActor(machine, { input, inspect }).start());
  return { portCalls: actors - 1, transitions };
};

/** An invoked actor that ends done as soon as a resolved promise lets it: a port that costs nothing. */
const instantPort: ActorLogic<
  { status: 'active' | 'done'; output: undefined; error: undefined },
  { type: 'answered' }
> = {
  transition: (snapshot, event) => (event.type === 'answered' ? { ...snapshot, status: 'done' } : snapshot),
  getInitialSnapshot: () => ({ status: 'active', output: undefined, error: undefined }),
  start: (_, { self }) => {
    Promise.resolve().then(() => self.send({ type: 'answered' }));
  },
  getPersistedSnapshot: (snapshot) => snapshot,
};

/** A flat machine: `calls` invoked states in a row, then `steps` eventless transitions, then the end. */
const flatMachine = (calls: number, steps: number): AnyStateMachine => {
  const states: Record<string, object> = { end: { type: 'final' } };
  const after = (i: number) => (i < steps ? `step${i}` : 'end');
  for (let i = 0; i < calls; i += 1)
    states[`call${i}`] = { invoke: { src: 'port', onDone: i + 1 < calls ? `call${i + 1}` : after(0) } };
  for (let i = 0; i < steps; i += 1) states[`step${i}`] = { always: after(i + 1) };
  return setup({ actors: { port: instantPort } }).createMachine({
    initial: calls > 0 ? 'call0' : after(0),
    states,
  } as never) as unknown as AnyStateMachine;
};

/** The flat machine with the tick's port calls whose run takes as many transitions as the tick. */
const floorOf = async (shape: Shape): Promise<AnyStateMachine> => {
  const bare = await inspectedRun(flatMachine(shape.portCalls, 0), undefined);
  return flatMachine(shape.portCalls, Math.max(0, shape.transitions - bare.transitions));
};

/** Runs per second of `run` over `ms` (the caller warms up first). */
const perSecond = async (run: () => Promise<unknown>, ms: number): Promise<number> => {
  let runs = 0;
  const started = performance.now();
  while (performance.now() - started < ms) {
    for (let i = 0; i < 100; i += 1) await run();
    runs += 100;
  }
  return (runs * 1000) / (performance.now() - started);
};

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
};

const rounds = Number.parseInt(process.env.BENCH_ROUNDS ?? '5', 10);
console.log(`Node ${process.version}, ${rounds} alternating rounds of 1 s each, medians`);
for (const c of [steadyTick, reimageTick]) {
  const shape = await shapeOf(c);
  const floor = await floorOf(shape);
  const world = new SimWorld(config);
  const ports = simPorts(world);
  const tick = async () => {
    c.reset(world);
    await runTick(config, ports);
  };
  const fold = () => toPromise(createActor(floor).start());
  for (let i = 0; i < 500; i += 1) await Promise.all([tick(), fold()]); // warm up the JIT
  const ticks: number[] = [];
  const folds: number[] = [];
  for (let round = 0; round < rounds; round += 1) {
    ticks.push(await perSecond(tick, 1000));
    folds.push(await perSecond(fold, 1000));
  }
  const [t, f] = [median(ticks), median(folds)];
  console.log(
    `${c.label}: ${shape.portCalls} port calls, ${shape.transitions} transitions; ` +
      `the tick ${Math.round(t)} ticks/s, xstate alone on that path ${Math.round(f)} folds/s ` +
      `(the floor's share of a tick's time: ${Math.round((100 * t) / f)} %)`,
  );
}
