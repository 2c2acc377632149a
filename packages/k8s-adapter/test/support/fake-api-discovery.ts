import type { JsonObject } from './fake-api-patch.js';

// The discovery documents real kubectl asks for before it touches an object
// (found with `kubectl -v=8` against this server). kubectl first asks for the
// aggregated form (apidiscovery.k8s.io/v2); answering plain application/json
// makes it fall back to the legacy per-group documents below, as it does
// against an apiserver older than 1.26.

/** The dispatcher in front of kubectl picks a client of the server's minor version. */
export const VERSION: JsonObject = {
  major: '1',
  minor: '32',
  gitVersion: 'v1.32.4',
  gitCommit: '0000000000000000000000000000000000000000',
  gitTreeState: 'clean',
  buildDate: '2025-04-22T00:00:00Z',
  goVersion: 'go1.23.6',
  compiler: 'gc',
  platform: 'linux/amd64',
};

export const apiVersions = (serverAddress: string): JsonObject => ({
  kind: 'APIVersions',
  versions: ['v1'],
  serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }],
});

export const API_GROUP_LIST: JsonObject = {
  kind: 'APIGroupList',
  apiVersion: 'v1',
  groups: [
    {
      name: 'apps',
      versions: [{ groupVersion: 'apps/v1', version: 'v1' }],
      preferredVersion: { groupVersion: 'apps/v1', version: 'v1' },
    },
    {
      name: 'events.k8s.io',
      versions: [{ groupVersion: 'events.k8s.io/v1', version: 'v1' }],
      preferredVersion: { groupVersion: 'events.k8s.io/v1', version: 'v1' },
    },
  ],
};

export const EVENTS_V1_RESOURCES: JsonObject = {
  kind: 'APIResourceList',
  apiVersion: 'v1',
  groupVersion: 'events.k8s.io/v1',
  resources: [
    {
      name: 'events',
      singularName: 'event',
      namespaced: true,
      kind: 'Event',
      verbs: ['create', 'get', 'list', 'patch'],
      shortNames: ['ev'],
    },
  ],
};

const VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

/**
 * The core group: nothing here is served (a request for it is unexpected),
 * but kubectl treats an empty list as a failed discovery and says so.
 */
export const CORE_V1_RESOURCES: JsonObject = {
  kind: 'APIResourceList',
  groupVersion: 'v1',
  resources: [
    { name: 'namespaces', singularName: 'namespace', namespaced: false, kind: 'Namespace', verbs: ['get', 'list'] },
    { name: 'pods', singularName: 'pod', namespaced: true, kind: 'Pod', verbs: ['get', 'list'], shortNames: ['po'] },
    {
      name: 'events',
      singularName: 'event',
      namespaced: true,
      kind: 'Event',
      verbs: ['create', 'get', 'list', 'patch'],
      shortNames: ['ev'],
    },
  ],
};

export const APPS_V1_RESOURCES: JsonObject = {
  kind: 'APIResourceList',
  apiVersion: 'v1',
  groupVersion: 'apps/v1',
  resources: [
    {
      name: 'daemonsets',
      singularName: 'daemonset',
      namespaced: true,
      kind: 'DaemonSet',
      verbs: VERBS,
      shortNames: ['ds'],
      categories: ['all'],
    },
    {
      name: 'daemonsets/status',
      singularName: '',
      namespaced: true,
      kind: 'DaemonSet',
      verbs: ['get', 'patch', 'update'],
    },
    {
      name: 'deployments',
      singularName: 'deployment',
      namespaced: true,
      kind: 'Deployment',
      verbs: VERBS,
      shortNames: ['deploy'],
      categories: ['all'],
    },
    {
      name: 'deployments/status',
      singularName: '',
      namespaced: true,
      kind: 'Deployment',
      verbs: ['get', 'patch', 'update'],
    },
  ],
};
