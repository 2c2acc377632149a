{{/*
The release's full name: <release>-image-refresh, or the release name alone
when it already says image-refresh; at most 63 characters (a label value).
*/}}
{{- define "image-refresh.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "image-refresh.serviceAccountName" -}}
{{- default (include "image-refresh.fullname" .) .Values.serviceAccount.name -}}
{{- end -}}

{{- define "image-refresh.labels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/component: image-refresh
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{/* Where the profile's ConfigMap is mounted, and the file IMAGE_REFRESH_PROFILE names. */}}
{{- define "image-refresh.profileDir" -}}/etc/image-refresh/profile{{- end -}}

{{/*
A value of env, pins or a named value as the string the tick reads: a
boolean is an on/off switch (YAML 1.1 reads an unquoted `on` as true), a
number is a count; the schema allows each only where it means that.
*/}}
{{- define "image-refresh.envString" -}}
{{- if kindIs "bool" . -}}
{{- ternary "on" "off" . -}}
{{- else if or (kindIs "float64" .) (kindIs "int64" .) (kindIs "int" .) -}}
{{- . | int64 | toString -}}
{{- else -}}
{{- . | toString -}}
{{- end -}}
{{- end -}}

{{/*
The named values and the variable each one sets (values.yaml). A set named
value wins over the same variable in env.
*/}}
{{- define "image-refresh.namedValues" -}}
imageTag: IMAGE_TAG
rolloutTimeout: ROLLOUT_TIMEOUT
onRolloutFailure: ON_ROLLOUT_FAILURE
verifySignatures: VERIFY_SIGNATURES
prepull: PREPULL
mirrorMode: MIRROR_MODE
pushgatewayUrl: PUSHGATEWAY_URL
{{- end -}}

{{/*
The chart's variables that name its topology (docs/behaviour.md §2): with a
profile they mean nothing, so a value naming one beside a profile is refused
here rather than ignored with a WARN on every tick. A test holds this list to
@image-refresh/core's CHART_TOPOLOGY_VARIABLES.
*/}}
{{- define "image-refresh.chartTopologyVariables" -}}
[RELEASE_NAME, RELEASE_NAMESPACE, DEPLOYMENT_NAME, REQUESTS_PROXY_DEPLOYMENT, RESOURCE_MONITOR_DAEMONSET, NODE_AGENTS_NAMESPACE, IMAGE_REGISTRY, JOBS_MANAGER_PINNED, PODS_MONITOR_PINNED, RESOURCE_MONITOR_PINNED, REQUESTS_PROXY_PINNED]
{{- end -}}

{{/* The pin variables the profile names (images[].pinnedBy, workloads[].pinnedBy). */}}
{{- define "image-refresh.profilePinVariables" -}}
{{- $names := list -}}
{{- range concat (.Values.profile.images | default list) (.Values.profile.workloads | default list) -}}
{{- if .pinnedBy }}{{ $names = append $names .pinnedBy }}{{ end -}}
{{- end -}}
{{- toJson $names -}}
{{- end -}}

{{/*
The container's environment, as a name → string map: env, then the named
values, then the files the chart mounts, then what a profile or its absence
implies. A value that renders empty is unset, as the tick reads it.
Refuses what would only be found on the edge.
*/}}
{{- define "image-refresh.environment" -}}
{{- $env := dict -}}
{{- range $name, $value := .Values.env -}}
{{- $text := include "image-refresh.envString" $value -}}
{{- if and (not (kindIs "invalid" $value)) (ne $text "") }}{{ $_ := set $env $name $text }}{{ end -}}
{{- end -}}
{{- range $key, $name := include "image-refresh.namedValues" . | fromYaml -}}
{{- $value := get $.Values $key -}}
{{- $text := include "image-refresh.envString" $value -}}
{{- if and (not (kindIs "invalid" $value)) (ne $text "") }}{{ $_ := set $env $name $text }}{{ end -}}
{{- end -}}
{{- $hasProfile := gt (len .Values.profile) 0 -}}
{{- $declaredPins := include "image-refresh.profilePinVariables" . | fromJsonArray -}}
{{- range $name, $value := .Values.pins -}}
{{- if not (has $name $declaredPins) -}}
{{- fail (printf "pins.%s: the profile names no such pin variable (images[].pinnedBy, workloads[].pinnedBy declare them: %s)" $name (join ", " $declaredPins | default "none")) -}}
{{- end -}}
{{- $_ := set $env $name (include "image-refresh.envString" $value) -}}
{{- end -}}
{{- with .Values.signatureTrust -}}
{{- if and (or .publicKeys .trustedRoot) (not .secretName) -}}
{{- fail "signatureTrust.publicKeys and signatureTrust.trustedRoot name files of signatureTrust.secretName, which is not set" -}}
{{- end -}}
{{- if and .secretName (not (or .publicKeys .trustedRoot)) -}}
{{- fail (printf "signatureTrust.secretName %q is mounted for nothing: name its files in signatureTrust.publicKeys or signatureTrust.trustedRoot" .secretName) -}}
{{- end -}}
{{- if .publicKeys -}}
{{- $files := list -}}
{{- range .publicKeys }}{{ $files = append $files (printf "/etc/image-refresh/trust/%s" .) }}{{ end -}}
{{- $_ := set $env "SIGNATURE_PUBLIC_KEYS" (join "," $files) -}}
{{- end -}}
{{- if .trustedRoot -}}
{{- $_ := set $env "SIGSTORE_TRUSTED_ROOT" (printf "/etc/image-refresh/trust/%s" .trustedRoot) -}}
{{- end -}}
{{- end -}}
{{- /* A trust nothing reads would look like verification and be none (docs/signatures.md): refused. */ -}}
{{- if and .Values.signatureTrust.secretName (eq (get $env "VERIFY_SIGNATURES" | default "off") "off") (not (get $env "FLEET_HALT_REF")) (not (get $env "FLEET_PROMOTION_REF")) -}}
{{- fail "signatureTrust is mounted, but with VERIFY_SIGNATURES off and no FLEET_HALT_REF or FLEET_PROMOTION_REF no tick reads it: set verifySignatures (warn or enforce), FLEET_HALT_REF or FLEET_PROMOTION_REF" -}}
{{- end -}}
{{- if .Values.registryAuth.secretName -}}
{{- $_ := set $env "REGISTRY_AUTH_FILE" "/etc/image-refresh/registry-auth/.dockerconfigjson" -}}
{{- end -}}
{{- if .Values.registryCa.secretName -}}
{{- $_ := set $env "REGISTRY_CA_FILE" (printf "/etc/image-refresh/registry-ca/%s" .Values.registryCa.key) -}}
{{- end -}}
{{- if $hasProfile -}}
{{- range include "image-refresh.chartTopologyVariables" . | fromYamlArray -}}
{{- if and (hasKey $env .) (not (has . $declaredPins)) -}}
{{- fail (printf "env.%s names the chart tracebloc/client's topology, which a profile replaces: remove it (a tick would ignore it and say so every time)" .) -}}
{{- end -}}
{{- end -}}
{{- $_ := set $env "IMAGE_REFRESH_PROFILE" (printf "%s/profile.yaml" (include "image-refresh.profileDir" .)) -}}
{{- $untagged := list -}}
{{- range .Values.profile.images }}{{ if not .tag }}{{ $untagged = append $untagged .name }}{{ end }}{{ end -}}
{{- if and $untagged (not (get $env "IMAGE_TAG")) -}}
{{- fail (printf "imageTag (IMAGE_TAG) is required: the profile's images %s name no tag of their own" (join ", " $untagged)) -}}
{{- end -}}
{{- else -}}
{{- /*
The chart tracebloc/client's names, as the tick derives them
(docs/behaviour.md §2), written out: the CronJob says what it follows, and
the Roles below name the same objects.
*/ -}}
{{- $release := get $env "RELEASE_NAME" | default .Release.Name -}}
{{- $_ := set $env "RELEASE_NAME" $release -}}
{{- $_ := set $env "RELEASE_NAMESPACE" (get $env "RELEASE_NAMESPACE" | default .Release.Namespace) -}}
{{- $_ := set $env "DEPLOYMENT_NAME" (get $env "DEPLOYMENT_NAME" | default (printf "%s-jobs-manager" $release)) -}}
{{- $_ := set $env "REQUESTS_PROXY_DEPLOYMENT" (get $env "REQUESTS_PROXY_DEPLOYMENT" | default (printf "%s-requests-proxy" $release)) -}}
{{- $_ := set $env "RESOURCE_MONITOR_DAEMONSET" (get $env "RESOURCE_MONITOR_DAEMONSET" | default (printf "%s-resource-monitor" $release)) -}}
{{- $_ := set $env "NODE_AGENTS_NAMESPACE" (get $env "NODE_AGENTS_NAMESPACE" | default "tracebloc-node-agents") -}}
{{- if not (get $env "IMAGE_TAG") -}}
{{- fail "imageTag (IMAGE_TAG) is required: the floating tag whose digest is followed" -}}
{{- end -}}
{{- end -}}
{{- /* extraEnv is for what values cannot carry (valueFrom): never what the chart renders or derives its objects from. */ -}}
{{- $reserved := concat (keys $env) (include "image-refresh.chartTopologyVariables" . | fromYamlArray) (list "PREPULL" "IMAGE_REFRESH_PROFILE" "VERIFY_SIGNATURES" "FLEET_HALT_REF" "FLEET_PROMOTION_REF" "SIGNATURE_PUBLIC_KEYS" "SIGSTORE_TRUSTED_ROOT" "REGISTRY_AUTH_FILE" "REGISTRY_CA_FILE") -}}
{{- range .Values.extraEnv -}}
{{- if has .name $reserved -}}
{{- fail (printf "extraEnv %s: set it in env or its named value, where the schema checks it and the chart renders from it; extraEnv is for values from elsewhere (valueFrom)" .name) -}}
{{- end -}}
{{- end -}}
{{- toJson $env -}}
{{- end -}}

{{/*
What the tick refuses in a profile beyond its schema's shape (the whole
document: docs/profiles.md, "What is checked, and when"), refused here so
that helm install says it instead of every tick on the edge.
*/}}
{{- define "image-refresh.profileProblems" -}}
{{- $problems := list -}}
{{- $images := list -}}
{{- range .Values.profile.images -}}
{{- if has .name $images }}{{ $problems = append $problems (printf "images: %q is declared twice" .name) }}{{ end -}}
{{- $images = append $images .name -}}
{{- end -}}
{{- $ids := list -}}
{{- $objects := list -}}
{{- $run := list -}}
{{- range $i, $w := .Values.profile.workloads -}}
{{- if has $w.id $ids }}{{ $problems = append $problems (printf "workloads: id %q is declared twice" $w.id) }}{{ end -}}
{{- $ids = append $ids $w.id -}}
{{- $object := printf "%s %s/%s" $w.kind $w.namespace $w.name -}}
{{- if has $object $objects }}{{ $problems = append $problems (printf "workloads: %s is declared twice" $object) }}{{ end -}}
{{- $objects = append $objects $object -}}
{{- range $container, $image := $w.containers -}}
{{- if not (has $image $images) }}{{ $problems = append $problems (printf "workloads[%d].containers.%s: image %q is not declared" $i $container $image) }}{{ end -}}
{{- $run = append $run $image -}}
{{- end -}}
{{- if and (eq $w.id $.Values.profile.gate) $w.decoupled }}{{ $problems = append $problems (printf "gate %q is decoupled: the gate cannot be refreshed past itself" $w.id) }}{{ end -}}
{{- end -}}
{{- if not (has .Values.profile.gate $ids) }}{{ $problems = append $problems (printf "gate %q is no workload id of profile.workloads" (toString .Values.profile.gate)) }}{{ end -}}
{{- range $images -}}
{{- if not (has . $run) }}{{ $problems = append $problems (printf "images: %q runs in no container" .) }}{{ end -}}
{{- end -}}
{{- toJson $problems -}}
{{- end -}}

{{/*
The workloads the Roles are rendered from, as JSON: each one's kind,
namespace and name, and the gate's namespace (where Events are recorded).
With a profile, its own; without, the chart tracebloc/client's three, named
by the environment above (the one template that names the vendor's
workloads; a test holds it to @image-refresh/core's DEFAULT_PROFILE).
*/}}
{{- define "image-refresh.topology" -}}
{{- $env := include "image-refresh.environment" . | fromJson -}}
{{- if gt (len .Values.profile) 0 -}}
{{- $problems := include "image-refresh.profileProblems" . | fromJsonArray -}}
{{- if $problems -}}
{{- fail (printf "profile: %s" (join "; " $problems)) -}}
{{- end -}}
{{- $gate := "" -}}
{{- $workloads := list -}}
{{- range .Values.profile.workloads -}}
{{- $workloads = append $workloads (dict "kind" .kind "namespace" .namespace "name" .name) -}}
{{- if eq .id $.Values.profile.gate }}{{ $gate = .namespace }}{{ end -}}
{{- end -}}
{{- toJson (dict "gateNamespace" $gate "workloads" $workloads) -}}
{{- else -}}
{{- $namespace := get $env "RELEASE_NAMESPACE" -}}
{{- $workloads := list
  (dict "kind" "Deployment" "namespace" $namespace "name" (get $env "DEPLOYMENT_NAME"))
  (dict "kind" "Deployment" "namespace" $namespace "name" (get $env "REQUESTS_PROXY_DEPLOYMENT"))
  (dict "kind" "DaemonSet" "namespace" (get $env "NODE_AGENTS_NAMESPACE") "name" (get $env "RESOURCE_MONITOR_DAEMONSET"))
-}}
{{- toJson (dict "gateNamespace" $namespace "workloads" $workloads) -}}
{{- end -}}
{{- end -}}

{{/*
A Role's and RoleBinding's name in `namespace`: the release's full name in
its own namespace; elsewhere prefixed with the release's namespace, so two
releases of the same name in different namespaces never claim one Role.
*/}}
{{- define "image-refresh.roleName" -}}
{{- if eq .namespace .root.Release.Namespace -}}
{{- include "image-refresh.fullname" .root -}}
{{- else -}}
{{- printf "%s-%s" .root.Release.Namespace (include "image-refresh.fullname" .root) -}}
{{- end -}}
{{- end -}}
