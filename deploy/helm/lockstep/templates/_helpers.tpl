{{/*
The five services. key: the values block; ports: gRPC API and HTTP (health, metrics); kubeApi:
whether the service calls the Kubernetes API at all (the others get no token and no API egress).
*/}}
{{- define "lockstep.serviceTable" -}}
watcher: { key: watcher, grpcPort: 9090, httpPort: 8090, kubeApi: true }
lease-coordinator: { key: leaseCoordinator, grpcPort: 9091, httpPort: 8091, kubeApi: true }
skew-enforcer: { key: skewEnforcer, grpcPort: 9092, httpPort: 8092, kubeApi: true }
bootimage-updater: { key: bootimageUpdater, grpcPort: 9093, httpPort: 8093, kubeApi: true }
status-aggregator: { key: statusAggregator, grpcPort: 9094, httpPort: 8094, kubeApi: true }
{{- end }}

{{/* Prefix of every object name. Takes the root context. */}}
{{- define "lockstep.prefix" -}}
{{- default .Release.Name .Values.fullnameOverride | trunc 40 | trimSuffix "-" -}}
{{- end }}

{{/*
Per-service helpers take a context dict: root ($), name (service name), svc (its serviceTable row),
v (its values block).
*/}}
{{- define "lockstep.name" -}}
{{- printf "%s-%s" (include "lockstep.prefix" .root) .name | trunc 63 | trimSuffix "-" -}}
{{- end }}

{{- define "lockstep.commonLabels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
app.kubernetes.io/name: lockstep
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: lockstep
{{- with .Values.global.labels }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{- define "lockstep.labels" -}}
{{ include "lockstep.commonLabels" .root }}
app.kubernetes.io/component: {{ .name }}
{{- end }}

{{- define "lockstep.selectorLabels" -}}
app.kubernetes.io/name: lockstep
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .name }}
{{- end }}

{{/* repository:tag, pinned with @digest when global.image.digest is set (by `npm run image`'s packaged chart)
     and the service does not name an image of its own. */}}
{{- define "lockstep.image" -}}
{{- $g := .root.Values.global.image -}}
{{- $ref := printf "%s:%s" (default $g.repository .v.image.repository) (default (default .root.Chart.AppVersion $g.tag) .v.image.tag) -}}
{{- if and $g.digest (not .v.image.repository) (not .v.image.tag) -}}
{{- $ref = printf "%s@%s" $ref $g.digest -}}
{{- end -}}
{{- $ref -}}
{{- end }}

{{/* Environment of one service: the runtime's base variables, then its own settings. */}}
{{- define "lockstep.env" -}}
{{- $g := .root.Values.global -}}
- name: SERVICE_NAME
  value: {{ .name | quote }}
- name: LOG_LEVEL
  value: {{ .v.logLevel | quote }}
- name: HTTP_PORT
  value: {{ .svc.httpPort | quote }}
- name: GRPC_PORT
  value: {{ .svc.grpcPort | quote }}
- name: POD_NAME
  valueFrom:
    fieldRef:
      fieldPath: metadata.name
- name: POD_NAMESPACE
  valueFrom:
    fieldRef:
      fieldPath: metadata.namespace
- name: NATS_URL
  value: {{ required "global.nats.url is required" $g.nats.url | quote }}
- name: NATS_REPLICAS
  value: {{ $g.nats.replicas | quote }}
{{- $le := include "lockstep.leaderElection" . | fromJson }}
- name: LEADER_ELECTION
  value: {{ $le.enabled | quote }}
- name: LEADER_ELECTION_NAMESPACE
  value: {{ .root.Release.Namespace | quote }}
- name: LEADER_ELECTION_LEASE_DURATION
  value: {{ $le.leaseDuration | quote }}
- name: LEADER_ELECTION_RENEW_DEADLINE
  value: {{ $le.renewDeadline | quote }}
- name: LEADER_ELECTION_RETRY_PERIOD
  value: {{ $le.retryPeriod | quote }}
{{- if eq $g.nats.auth.mode "userPassword" }}
- name: NATS_USER
  value: {{ printf "%s%s" $g.nats.auth.userPrefix .name | quote }}
- name: NATS_PASSWORD
  valueFrom:
    secretKeyRef:
      name: {{ required "global.nats.auth.existingSecret is required for mode userPassword" $g.nats.auth.existingSecret }}
      key: {{ printf "%s-password" .name }}
{{- else if eq $g.nats.auth.mode "credsFile" }}
- name: NATS_CREDS_FILE
  value: /etc/lockstep/nats/nats.creds
{{- end }}
{{- if $g.grpcTls.enabled }}
- name: GRPC_TLS_CERT
  value: /etc/lockstep/tls/tls.crt
- name: GRPC_TLS_KEY
  value: /etc/lockstep/tls/tls.key
{{- /*
The CA checks client certificates: for every service with requireClientCert, and for the
lease-coordinator when LEASE_AUTH accepts mTLS identities. grpc-js asks a client for a certificate
only when it also demands one, so with mtls in LEASE_AUTH (mtls or token,mtls) the
lease-coordinator demands one from every caller.
*/}}
{{- $leaseMtls := and (eq .name "lease-coordinator") (include "lockstep.leaseAuthMtls" .root) }}
{{- $requireCert := or $g.grpcTls.requireClientCert $leaseMtls }}
{{- if $requireCert }}
- name: GRPC_TLS_CA
  value: /etc/lockstep/tls/ca.crt
{{- end }}
{{- if $requireCert }}
- name: GRPC_TLS_REQUIRE_CLIENT_CERT
  value: "true"
{{- end }}
{{- end }}
- name: SHUTDOWN_TIMEOUT
  value: {{ $g.shutdownTimeout | quote }}
{{- with $g.stateMaxAge }}
- name: STATE_MAX_AGE
  value: {{ . | quote }}
{{- end }}
{{- with $g.mallocArenaMax }}
- name: MALLOC_ARENA_MAX
  value: {{ . | quote }}
{{- end }}
{{- $heap := list }}
{{- with .v.maxOldSpaceMiB }}{{ $heap = append $heap (printf "--max-old-space-size=%v" .) }}{{ end }}
{{- with .v.maxSemiSpaceMiB }}{{ $heap = append $heap (printf "--max-semi-space-size=%v" .) }}{{ end }}
{{- if $heap }}
- name: NODE_OPTIONS
  value: {{ join " " $heap | quote }}
{{- end }}
{{- if .v.optimizeForSize }}
- name: V8_OPTIMIZE_FOR_SIZE
  value: "true"
{{- end }}
{{- include (printf "lockstep.env.%s" .name) . }}
{{- with .v.extraEnv }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{/* Lease namespaces of other actors, by naming convention. */}}
{{- define "lockstep.foreignLeaseNamespaces" -}}
{{- $want := .naming -}}
{{- $out := list -}}
{{- range .root.Values.global.leases.foreign }}{{ if eq .naming $want }}{{ $out = append $out .namespace }}{{ end }}{{ end -}}
{{- join "," $out -}}
{{- end }}

{{- define "lockstep.env.bootImages" }}
- name: BOOTIMAGES_NAMESPACE
  value: {{ .root.Values.global.bootImages.namespace | quote }}
- name: BOOTIMAGES_CONFIGMAP
  value: {{ .root.Values.global.bootImages.configMap | quote }}
{{- end }}

{{- define "lockstep.env.watcher" }}
{{- $l := .root.Values.global.leases }}
- name: WATCHER_ID
  valueFrom:
    fieldRef:
      fieldPath: metadata.name
- name: LEASE_NAMESPACES
  {{- $ns := list $l.namespace }}
  {{- if $l.foreign }}
  {{- range $l.foreign }}{{ $ns = append $ns .namespace }}{{ end }}
  {{- else }}
  {{- $ns = append (append $ns "medik8s-leases") "kube-node-maintenance" }}
  {{- end }}
  value: {{ join "," $ns | quote }}
{{- include "lockstep.env.bootImages" . }}
- name: SIGNAL_SOURCES
  value: {{ default (list "none") .v.signalSources | join "," | quote }}
- name: KURED_NAMESPACE
  value: {{ .v.kured.namespace | quote }}
- name: KURED_DAEMONSET
  value: {{ .v.kured.daemonSet | quote }}
- name: KURED_LOCK_ANNOTATION
  value: {{ .v.kured.lockAnnotation | quote }}
{{- end }}

{{- define "lockstep.env.lease-coordinator" }}
{{- $l := .root.Values.global.leases }}
- name: COORDINATOR_ID
  valueFrom:
    fieldRef:
      fieldPath: metadata.name
- name: LEASE_NAMESPACE
  value: {{ $l.namespace | quote }}
{{- if $l.foreign }}
- name: LEASE_FOREIGN_SOURCES
  {{- $pairs := list }}
  {{- range $l.foreign }}{{ $pairs = append $pairs (printf "%s:%s" .namespace .naming) }}{{ end }}
  value: {{ join "," $pairs | quote }}
{{- end }}
- name: LEASE_POLICY
  value: {{ toJson .v.policy | quote }}
- name: SWEEP_INTERVAL
  value: {{ .v.sweepInterval | quote }}
- name: BUDGET_RESYNC
  value: {{ .v.budgetResync | quote }}
- name: LEASE_ADAPTERS
  value: {{ default (list "none") .v.adapters | join "," | quote }}
- name: LEASE_ADAPTER_DURATION
  value: {{ .v.adapterDuration | quote }}
- name: LEASE_ADAPTER_RESYNC
  value: {{ .v.adapterResync | quote }}
- name: LEASE_AUTH
  value: {{ .root.Values.leaseAuth.mode | quote }}
- name: LEASE_AUTH_CACHE_TTL
  value: {{ .root.Values.leaseAuth.cacheTTL | quote }}
{{- $w := .root.Values.leaseWebhook }}
{{- if $w.enabled }}
{{- /* The webhook serves with the gRPC certificate, whose names include this Service's. */}}
- name: ADMISSION_TLS_CERT
  value: /etc/lockstep/tls/tls.crt
- name: ADMISSION_TLS_KEY
  value: /etc/lockstep/tls/tls.key
- name: ADMISSION_PORT
  value: {{ $w.port | quote }}
- name: ADMISSION_BREAK_GLASS_GROUPS
  value: {{ join "," $w.breakGlassGroups | quote }}
- name: ADMISSION_POD_DELETE
  value: {{ $w.podDelete | quote }}
{{- with $w.taintExemptKeys }}
- name: ADMISSION_TAINT_EXEMPT_KEYS
  value: {{ join "," . | quote }}
{{- end }}
{{- end }}
{{- end }}

{{- define "lockstep.env.skew-enforcer" }}
- name: LOCKSTEP_NAMESPACE
  value: {{ .root.Release.Namespace | quote }}
- name: OPERATOR_VERSION
  value: {{ .root.Chart.AppVersion | quote }}
- name: PAUSED_POOLS
  value: {{ .v.pausedPools | quote }}
- name: KUBELET_SKEW
  value: {{ .v.kubeletSkew | quote }}
- name: RESYNC_PERIOD
  value: {{ .v.resyncPeriod | quote }}
{{- include "lockstep.env.bootImages" . }}
{{- end }}

{{- define "lockstep.env.bootimage-updater" }}
{{- include "lockstep.env.bootImages" . }}
{{- with .v.awsAllowedAmis }}
- name: AWS_ALLOWED_AMIS
  value: {{ join "," . | quote }}
{{- end }}
{{- with .v.controllerArch }}
- name: CONTROLLER_ARCH
  value: {{ . | quote }}
{{- end }}
{{- end }}

{{- define "lockstep.env.status-aggregator" }}
{{- $l := .root.Values.global.leases }}
- name: LEASE_NAMESPACE
  value: {{ $l.namespace | quote }}
{{- with include "lockstep.foreignLeaseNamespaces" (dict "root" .root "naming" "node") }}
- name: FOREIGN_NODE_LEASE_NAMESPACES
  value: {{ . | quote }}
{{- end }}
{{- with include "lockstep.foreignLeaseNamespaces" (dict "root" .root "naming" "medik8s") }}
- name: MEDIK8S_LEASE_NAMESPACES
  value: {{ . | quote }}
{{- end }}
- name: ADMIN_HOLDER_PREFIX
  value: {{ .v.adminHolderPrefix | quote }}
{{- with .v.updateStatusApi }}
- name: UPDATE_API_ENABLED
  value: {{ .enabled | quote }}
{{- if .enabled }}
- name: UPDATE_API_WRITES_PER_SECOND
  value: {{ .writesPerSecond | quote }}
- name: UPDATE_API_WRITE_BURST
  value: {{ .writeBurst | quote }}
{{- end }}
{{- end }}
{{- with .v.alerts }}
{{- if .url }}
- name: ALERTS_URL
  value: {{ .url | quote }}
- name: ALERTS_INTERVAL
  value: {{ .interval | quote }}
{{- if .bearerToken }}
- name: ALERTS_TOKEN_FILE
  value: /var/run/secrets/kubernetes.io/serviceaccount/token
{{- end }}
{{- if .caConfigMap.name }}
- name: ALERTS_CA_FILE
  value: /etc/lockstep/alerts-ca/ca.crt
{{- end }}
{{- end }}
{{- end }}
{{- end }}

{{/* "true" when LEASE_AUTH accepts client certificates (mode mtls, token,mtls or mtls,token), else "". Takes the root context. */}}
{{- define "lockstep.leaseAuthMtls" -}}
{{- if has "mtls" (splitList "," .Values.leaseAuth.mode) }}true{{ end -}}
{{- end }}

{{/* "true" when LEASE_AUTH checks bearer tokens with TokenReview, else "". Takes the root context. */}}
{{- define "lockstep.leaseAuthToken" -}}
{{- if has "token" (splitList "," .Values.leaseAuth.mode) }}true{{ end -}}
{{- end }}

{{/* Name of the Secret every service mounts for gRPC TLS. Takes the root context. */}}
{{- define "lockstep.grpcTlsSecret" -}}
{{- default (printf "%s-grpc-tls" (include "lockstep.prefix" .)) .Values.global.grpcTls.secretName -}}
{{- end }}

{{/*
DNS names of every service's Service (enabled or not, so that enabling one later needs no new
certificate), as a YAML list. Takes the root context.
*/}}
{{- define "lockstep.grpcDnsNames" -}}
{{- $ns := .Release.Namespace }}
{{- $domain := .Values.global.grpcTls.clusterDomain }}
{{- range $name, $svc := fromYaml (include "lockstep.serviceTable" .) }}
{{- $host := include "lockstep.name" (dict "root" $ "name" $name) }}
- {{ $host }}
- {{ printf "%s.%s" $host $ns }}
- {{ printf "%s.%s.svc" $host $ns }}
- {{ printf "%s.%s.svc.%s" $host $ns $domain }}
{{- end }}
{{- end }}

{{/*
A Go-style duration ("15s", "1m30s", "500ms", "1.5s"; the services' parseDuration) in whole
milliseconds.
*/}}
{{- define "lockstep.durationMs" -}}
{{- $total := 0.0 -}}
{{- range regexFindAll "[0-9]+(\\.[0-9]+)?(ms|h|m|s|d)" . -1 -}}
{{- $n := regexFind "^[0-9.]+" . | float64 -}}
{{- $unit := regexFind "[a-z]+$" . -}}
{{- $total = addf $total (mulf $n (get (dict "ms" 1 "s" 1000 "m" 60000 "h" 3600000 "d" 86400000) $unit)) -}}
{{- end -}}
{{- $total | floor | int -}}
{{- end }}

{{/* Name of a service's leader-election Lease (in the release namespace); the services use the same. */}}
{{- define "lockstep.electionLease" -}}
lockstep-{{ .name }}
{{- end }}

{{/*
Leader election of one service (context dict: root, name, v), as JSON: global.leaderElection with
the service's own leaderElection keys over it. Fails on timings client-go's protocol cannot work
with (JSON schema cannot compare two values): renewDeadline must be shorter than leaseDuration (the
leader gives up before another replica may take the Lease over) and longer than 1.2 x retryPeriod
(client-go's JitterFactor: a leader gets more than one renewal attempt). For the watcher, the worst
failover must also fit inside STATE_MAX_AGE, or every consumer calls the state plane stale during
it: the last heartbeat, one HEARTBEAT_INTERVAL (default 3s) before the leader dies, then
leaseDuration and two retry periods (the follower's observation of the last renewal and its
acquiring try). Also fails when the release namespace is a node lease namespace, and when leader
election is off with more than one replica.
*/}}
{{- define "lockstep.leaderElection" -}}
{{- $g := .root.Values.global.leaderElection -}}
{{- $o := .v.leaderElection | default dict -}}
{{- $le := dict -}}
{{- range $k := list "enabled" "leaseDuration" "renewDeadline" "retryPeriod" }}
{{- $_ := set $le $k (ternary (index $o $k) (index $g $k) (hasKey $o $k)) }}
{{- end }}
{{- $key := (index (fromYaml (include "lockstep.serviceTable" .root)) .name).key }}
{{- $where := printf "leader election of the %s (%s.leaderElection over global.leaderElection)" .name $key }}
{{- if $le.enabled }}
{{- /*
The election Leases live in the release namespace; node-maintenance Leases are read from the lease
namespaces. Sharing one would show lockstep-<service> as a node's lease and let every service
create node leases (create on leases cannot be limited by name).
*/}}
{{- $l := .root.Values.global.leases }}
{{- $leaseNs := list $l.namespace }}
{{- if $l.foreign }}{{ range $l.foreign }}{{ $leaseNs = append $leaseNs .namespace }}{{ end }}{{ else }}{{ $leaseNs = concat $leaseNs (list "medik8s-leases" "kube-node-maintenance") }}{{ end }}
{{- if has .root.Release.Namespace $leaseNs }}
{{- fail (printf "%s: the release namespace %s is also a node lease namespace (global.leases): the election Lease lockstep-%s would be read as a node's lease and every service could create node leases there. Install Lockstep in a namespace of its own" $where .root.Release.Namespace .name) }}
{{- end }}
{{- $lease := include "lockstep.durationMs" $le.leaseDuration | atoi }}
{{- $renew := include "lockstep.durationMs" $le.renewDeadline | atoi }}
{{- $retry := include "lockstep.durationMs" $le.retryPeriod | atoi }}
{{- if ge $renew $lease }}
{{- fail (printf "%s: renewDeadline (%s) must be shorter than leaseDuration (%s): a leader must give up leading before another replica may take its Lease over" $where $le.renewDeadline $le.leaseDuration) }}
{{- end }}
{{- if le (mul $renew 10) (mul $retry 12) }}
{{- fail (printf "%s: renewDeadline (%s) must be longer than 1.2 x retryPeriod (%s), client-go's jitter factor: the leader needs more than one try to renew" $where $le.renewDeadline $le.retryPeriod) }}
{{- end }}
{{- if eq .name "watcher" }}
{{- $heartbeat := "3s" }}
{{- range (.v.extraEnv | default list) }}{{ if eq .name "HEARTBEAT_INTERVAL" }}{{ $heartbeat = .value }}{{ end }}{{ end }}
{{- $maxAge := .root.Values.global.stateMaxAge }}
{{- if $maxAge }}
{{- $failover := add (include "lockstep.durationMs" $heartbeat | atoi) $lease (mul 2 $retry) }}
{{- if ge $failover (include "lockstep.durationMs" $maxAge | atoi) }}
{{- fail (printf "%s: the watcher's worst failover, HEARTBEAT_INTERVAL (%s) + leaseDuration (%s) + 2 x retryPeriod (%s), is not shorter than global.stateMaxAge (%s): every service would call the state plane stale during it. Shorten the watcher's timings (default 6s / 4s / 1s) or raise stateMaxAge" $where $heartbeat $le.leaseDuration $le.retryPeriod $maxAge) }}
{{- end }}
{{- end }}
{{- end }}
{{- end }}
{{- if and (not $le.enabled) (gt (int .v.replicas) 1) }}
{{- fail (printf "%s is off with %s.replicas %v: every replica would write. Set %s.replicas to 1 or enable leader election" $where $key .v.replicas $key) }}
{{- end }}
{{- toJson $le -}}
{{- end }}

{{/*
Role and RoleBinding for a service's leader election (context dict: root, name, v), when it is
on: its own election Lease in the release namespace, read and renewed by name; create cannot be
limited by name (the name is not known before the object exists), so it is granted on leases.
*/}}
{{- define "lockstep.leaderElectionRbac" -}}
{{- $le := include "lockstep.leaderElection" . | fromJson }}
{{- if $le.enabled }}
{{- $sa := include "lockstep.name" . }}
---
# Leader election (client-go's protocol on Lease {{ include "lockstep.electionLease" . }} in the release namespace).
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: {{ $sa }}-leader-election
  namespace: {{ .root.Release.Namespace }}
  labels:
    {{- include "lockstep.labels" . | nindent 4 }}
rules:
  - apiGroups: [coordination.k8s.io]
    resources: [leases]
    resourceNames: [{{ include "lockstep.electionLease" . | quote }}]
    verbs: [get, update]
  # The election Lease is created by the first replica to run (create cannot be limited by name).
  - apiGroups: [coordination.k8s.io]
    resources: [leases]
    verbs: [create]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: {{ $sa }}-leader-election
  namespace: {{ .root.Release.Namespace }}
  labels:
    {{- include "lockstep.labels" . | nindent 4 }}
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: Role
  name: {{ $sa }}-leader-election
subjects:
  - kind: ServiceAccount
    name: {{ $sa }}
    namespace: {{ .root.Release.Namespace }}
{{- end }}
{{- end }}

{{/*
topologySpreadConstraints of a service (context dict: root, name, v): its own
topologySpreadConstraints when given, else one per enabled global.topologySpread entry (nodes by
default, zones on request), matching the service's pods of the same ReplicaSet.
*/}}
{{- define "lockstep.topologySpread" -}}
{{- if .v.topologySpreadConstraints }}
{{- toYaml .v.topologySpreadConstraints }}
{{- else }}
{{- $ctx := . }}
{{- $s := .root.Values.global.topologySpread }}
{{- range $t := list (dict "c" $s.hostname "key" "kubernetes.io/hostname") (dict "c" $s.zone "key" "topology.kubernetes.io/zone") }}
{{- if $t.c.enabled }}
- maxSkew: {{ $t.c.maxSkew }}
  topologyKey: {{ $t.key }}
  whenUnsatisfiable: {{ $t.c.whenUnsatisfiable }}
  labelSelector:
    matchLabels:
      {{- include "lockstep.selectorLabels" $ctx | nindent 6 }}
  matchLabelKeys: [pod-template-hash]
{{- end }}
{{- end }}
{{- end }}
{{- end }}
