import type { SimWorld } from '@image-refresh/core/sim';

// Core's scenarios describe their world events as code against a SimWorld
// (`act: (world) => …`). To replay the very same events on the real stack
// without copying the scenarios, a step acts on this recorder: each world
// method it calls is applied to the SimWorld as usual and also written down,
// for the real world to translate. Its config may be read (the bookkeeping
// keys a step names come from its topology): reading changes nothing.
// Anything else a step might touch (a field, a method nobody translates)
// throws: an event the real stack would silently miss must not pass as parity.

export type WorldCall =
  | { readonly method: 'publish'; readonly args: Parameters<SimWorld['publish']> }
  | { readonly method: 'setBehaviour'; readonly args: Parameters<SimWorld['setBehaviour']> }
  | { readonly method: 'setAnnotation'; readonly args: Parameters<SimWorld['setAnnotation']> }
  | { readonly method: 'injectClusterFault'; readonly args: Parameters<SimWorld['injectClusterFault']> }
  | { readonly method: 'injectRegistryFault'; readonly args: Parameters<SimWorld['injectRegistryFault']> }
  | { readonly method: 'helmRerender'; readonly args: Parameters<SimWorld['helmRerender']> }
  | { readonly method: 'setLiveImage'; readonly args: Parameters<SimWorld['setLiveImage']> }
  | { readonly method: 'breakBuild'; readonly args: Parameters<SimWorld['breakBuild']> };

const RECORDED: ReadonlySet<string> = new Set<WorldCall['method']>([
  'publish',
  'setBehaviour',
  'setAnnotation',
  'injectClusterFault',
  'injectRegistryFault',
  'helmRerender',
  'setLiveImage',
  'breakBuild',
]);

/** A SimWorld that writes down every world event a scenario step causes. */
export const recordingWorld = (world: SimWorld): { readonly world: SimWorld; readonly calls: WorldCall[] } => {
  const calls: WorldCall[] = [];
  const recorder = new Proxy(world, {
    get(target, property) {
      if (property === 'config') return target.config;
      if (typeof property !== 'string' || !RECORDED.has(property)) {
        throw new Error(
          `a scenario step used SimWorld.${String(property)}, which the parity suite does not translate to the real stack`,
        );
      }
      const method = Reflect.get(target, property) as (...args: unknown[]) => unknown;
      return (...args: unknown[]) => {
        calls.push({ method: property, args } as WorldCall);
        return Reflect.apply(method, target, args);
      };
    },
    set(_target, property) {
      throw new Error(`a scenario step assigned SimWorld.${String(property)}, which the parity suite cannot replay`);
    },
  });
  return { world: recorder, calls };
};
