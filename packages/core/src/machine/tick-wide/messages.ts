import type { TickConfig } from '../../config/tick-config.js';
import { event, requestsProxy, resourceMonitor } from '../operator-words.js';
import type { TickEvent } from '../tick-event.js';

// The tick's first and last lines.

export const tickStart = (c: TickConfig): TickEvent =>
  event(
    'info',
    'TICK_START',
    `release=${c.releaseName} namespace=${c.releaseNamespace} deployment=${c.deploymentName}`,
    [
      `client images: tracebloc/{jobs-manager,pods-monitor,resource-monitor} on ${c.imageRegistry} under tag=${c.imageTag}`,
      `also reconciling: ${requestsProxy(c)} (jobs-manager image), ${resourceMonitor(c)} in ${c.nodeAgentsNamespace}`,
    ],
  );

export const tickComplete = (): TickEvent => event('info', 'TICK_COMPLETE', 'tick complete');
