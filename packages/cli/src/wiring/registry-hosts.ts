import type { TickConfig } from '@image-refresh/core';
import type { RegistryHosts } from '@image-refresh/k8s-adapter';
import type { RegistryAccess } from './registry-access.js';

// How each registry host of a tick is reached (docs/configuration.md, "The
// registry"): Docker Hub through IMAGE_REFRESH_REGISTRY_URL and
// IMAGE_REFRESH_AUTH_URL, which belong to it alone; every other host at
// https://<host>, or http://<host> where REGISTRY_PLAIN_HTTP lists it.

export const registryHostsOf = (config: TickConfig, access: RegistryAccess): RegistryHosts => ({
  dockerHub: { baseUrl: config.registryUrl, authUrl: config.authUrl },
  ...(access.plainHttp === undefined ? {} : { plainHttp: access.plainHttp }),
});
