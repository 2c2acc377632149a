import type { Profile } from '@image-refresh/core';

// What a tick following `profile` needs, namespace by namespace, written from
// what a tick does (docs/profiles.md, "Permissions"; shop-rbac.yaml says why
// each verb): the oracle the chart's rendered Roles are held to, independent
// of the template that renders them.

export interface Rule {
  readonly apiGroups: readonly string[];
  readonly resources: readonly string[];
  readonly resourceNames?: readonly string[];
  readonly verbs: readonly string[];
}

const GET_PATCH = ['get', 'patch'];

/** Namespace → the rules of its Role, for a tick following `profile` (PREPULL=on: `prepull`). */
export const leastPrivilege = (profile: Profile, prepull: boolean): Record<string, Rule[]> => {
  const gate = profile.workloads.find((w) => w.id === profile.gate);
  const namespaces = [...new Set(profile.workloads.map((w) => w.namespace))];
  return Object.fromEntries(
    namespaces.map((namespace) => {
      const named = (kind: string) =>
        profile.workloads.filter((w) => w.namespace === namespace && w.kind === kind).map((w) => w.name);
      const rules: Rule[] = [];
      const deployments = named('Deployment');
      const daemonSets = named('DaemonSet');
      if (deployments.length > 0)
        rules.push({ apiGroups: ['apps'], resources: ['deployments'], resourceNames: deployments, verbs: GET_PATCH });
      if (daemonSets.length > 0)
        rules.push({ apiGroups: ['apps'], resources: ['daemonsets'], resourceNames: daemonSets, verbs: GET_PATCH });
      // Every Event regards the gate and is recorded beside it.
      if (namespace === gate?.namespace)
        rules.push({ apiGroups: ['events.k8s.io'], resources: ['events'], verbs: ['create', 'patch'] });
      // Staging's short-lived pods, and the leftovers of a killed tick found by label.
      if (prepull) rules.push({ apiGroups: [''], resources: ['pods'], verbs: ['create', 'get', 'list', 'delete'] });
      return [namespace, rules];
    }),
  );
};
