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
implies. Refuses what would only be found on the edge.
*/}}
{{- define "image-refresh.environment" -}}
{{- $env := dict -}}
{{- range $name, $value := .Values.env -}}
{{- if not (kindIs "invalid" $value) -}}
{{- $_ := set $env $name (include "image-refresh.envString" $value) -}}
{{- end -}}
{{- end -}}
{{- range $key, $name := include "image-refresh.namedValues" . | fromYaml -}}
{{- $value := get $.Values $key -}}
{{- if and (not (kindIs "invalid" $value)) (ne (include "image-refresh.envString" $value) "") -}}
{{- $_ := set $env $name (include "image-refresh.envString" $value) -}}
{{- end -}}
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
{{- if not (get $env "RELEASE_NAME") }}{{ $_ := set $env "RELEASE_NAME" .Release.Name }}{{ end -}}
{{- if not (get $env "RELEASE_NAMESPACE") }}{{ $_ := set $env "RELEASE_NAMESPACE" .Release.Namespace }}{{ end -}}
{{- if not (get $env "IMAGE_TAG") -}}
{{- fail "imageTag (IMAGE_TAG) is required: the floating tag whose digest is followed" -}}
{{- end -}}
{{- end -}}
{{- toJson $env -}}
{{- end -}}

{{/*
The workloads the Roles are rendered from, as JSON: each one's kind,
namespace and name, and the gate's namespace (where Events are recorded).
With a profile, its own; without, the chart tracebloc/client's three, named
by the same variables and defaults as the tick names them (the one template
that names the vendor's workloads; a test holds it to
@image-refresh/core's DEFAULT_PROFILE).
*/}}
{{- define "image-refresh.topology" -}}
{{- $env := include "image-refresh.environment" . | fromJson -}}
{{- if gt (len .Values.profile) 0 -}}
{{- $gate := "" -}}
{{- $workloads := list -}}
{{- range .Values.profile.workloads -}}
{{- $workloads = append $workloads (dict "kind" .kind "namespace" .namespace "name" .name) -}}
{{- if eq .id $.Values.profile.gate }}{{ $gate = .namespace }}{{ end -}}
{{- end -}}
{{- if not $gate -}}
{{- fail (printf "profile.gate %q is no workload id of profile.workloads" (toString .Values.profile.gate)) -}}
{{- end -}}
{{- toJson (dict "gateNamespace" $gate "workloads" $workloads) -}}
{{- else -}}
{{- $release := get $env "RELEASE_NAME" -}}
{{- $namespace := get $env "RELEASE_NAMESPACE" -}}
{{- $workloads := list
  (dict "kind" "Deployment" "namespace" $namespace "name" (get $env "DEPLOYMENT_NAME" | default (printf "%s-jobs-manager" $release)))
  (dict "kind" "Deployment" "namespace" $namespace "name" (get $env "REQUESTS_PROXY_DEPLOYMENT" | default (printf "%s-requests-proxy" $release)))
  (dict "kind" "DaemonSet" "namespace" (get $env "NODE_AGENTS_NAMESPACE" | default "tracebloc-node-agents") "name" (get $env "RESOURCE_MONITOR_DAEMONSET" | default (printf "%s-resource-monitor" $release)))
-}}
{{- toJson (dict "gateNamespace" $namespace "workloads" $workloads) -}}
{{- end -}}
{{- end -}}
