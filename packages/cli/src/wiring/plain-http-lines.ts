import { REGISTRY_ACCESS_ENV, type TickConfig } from '@image-refresh/core';
import type { LogEvent } from '../render/log-lines.js';
import type { RegistryAccess } from './registry-access.js';

// REGISTRY_PLAIN_HTTP is a security decision the operator made: each tick
// says which of the hosts it asks go without TLS, and a listed host that no
// image (nor the fleet halt) lives on is a likely typo, said rather than
// silently ignored (docs/configuration.md, "The registry").

/** The registry hosts this tick asks: its images', then the fleet halt's. */
const hostsAsked = (config: TickConfig): readonly string[] => [
  ...new Set([
    ...config.topology.images.map((i) => i.host),
    ...(config.fleetHalt === undefined ? [] : [config.fleetHalt.host]),
  ]),
];

export const plainHttpLines = (config: TickConfig, access: RegistryAccess): readonly LogEvent[] => {
  const listed = access.plainHttp ?? [];
  const asked = hostsAsked(config);
  const plain = listed.filter((host) => asked.includes(host));
  const unused = listed.filter((host) => !asked.includes(host));
  return [
    ...(plain.length === 0
      ? []
      : [
          {
            level: 'info' as const,
            code: 'REGISTRY_PLAIN_HTTP',
            message: `registry ${plain.join(', ')} reached over plain http (${REGISTRY_ACCESS_ENV.registryPlainHttp}): its answers are not protected by TLS, and no credentials are sent to it`,
          },
        ]),
    ...(unused.length === 0
      ? []
      : [
          {
            level: 'warn' as const,
            code: 'REGISTRY_PLAIN_HTTP_UNUSED',
            message: `WARN: ${REGISTRY_ACCESS_ENV.registryPlainHttp} lists ${unused.join(', ')}, where no followed image (nor the fleet halt) lives; it is ignored`,
          },
        ]),
  ];
};
