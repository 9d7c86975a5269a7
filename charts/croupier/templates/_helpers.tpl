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

{{/* CROUPIER_TABLE_ADDRESS for the table host's callers: each game's StatefulSet pods by
their stable DNS names (<pod>.<headless service>), game=pod|pod,...: a caller keeps a
channel per pod and remembers which one serves a table (croupier.table.client), where one
balanced address would send each call to any pod and try the next until the owner. */}}
{{- define "croupier.tableAddress" -}}
{{- $table := .Values.services.table -}}
{{- $port := .Values.global.ports.grpc -}}
{{- $games := list -}}
{{- range $game := $table.games -}}
{{- $workload := printf "table-%s" $game -}}
{{- $pods := list -}}
{{- range $n := until (int $table.replicas) -}}
{{- $pods = append $pods (printf "%s-%d.%s:%v" $workload $n $workload $port) -}}
{{- end -}}
{{- $games = append $games (printf "%s=%s" $game (join "|" $pods)) -}}
{{- end -}}
{{- join "," $games -}}
{{- end -}}
