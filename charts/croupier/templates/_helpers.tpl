{{/* Labels shared by every object of one service. */}}
{{- define "croupier.labels" -}}
app.kubernetes.io/name: {{ .name }}
app.kubernetes.io/part-of: croupier
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/version: {{ .root.Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .root.Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .root.Chart.Name .root.Chart.Version }}
{{- end -}}

{{/* Selector labels: stable across upgrades. */}}
{{- define "croupier.selectorLabels" -}}
app.kubernetes.io/name: {{ .name }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
{{- end -}}

{{/* <registry>/<service>:<tag>, with per-service overrides. */}}
{{- define "croupier.image" -}}
{{- $defaults := .root.Values.global.image -}}
{{- $own := .service.image | default dict -}}
{{- $repository := $own.repository | default (printf "%s/%s" $defaults.registry .name) -}}
{{- $tag := $own.tag | default $defaults.tag | default .root.Chart.AppVersion -}}
{{- printf "%s:%s" $repository $tag -}}
{{- end -}}
