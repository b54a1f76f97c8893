{{- /*
The lease webhook's registration (leaseWebhook.*): five webhooks on the lease-coordinator's
Service, one per failure policy and load. matchConditions (CEL; beta and on by default since
Kubernetes 1.28, GA in 1.30) split Node updates: a change of machineconfiguration.openshift.io/desiredConfig
(an update starting) goes to the updates webhook; a cordon, or an added or changed NoExecute or
out-of-service taint (but Kubernetes' own keys, leaseWebhook.taintExemptKeys), to the
node-disruptions one; both fail closed, so neither a down coordinator nor a replica dying mid-call
lets one through. Every other Node write calls neither. Evictions, deletions and remediations go to
the fail-open one. Without matchConditions a fail-closed Node UPDATE webhook would hold every label or
annotation write on every node while the coordinator is down, so on older API servers the updates,
node-disruption and power webhooks fail open too (Ignore), and the chart README says so. Pod deletions have their
own webhook, always fail-open with a short timeout: it sees every pod deletion in the cluster, and
matchConditions keep the kubelets' and kube-system's (the garbage collector's) from calling it. Rendered by
grpc-tls.yaml, which knows the CA. Takes (dict "root" $ "caBundle" PEM-or-"" "annotations" map).
*/}}
{{- define "lockstep.leaseWebhookConfiguration" }}
{{- $root := .root }}
{{- $w := $root.Values.leaseWebhook }}
{{- $ctx := dict "root" $root "name" "lease-coordinator" "v" $root.Values.leaseCoordinator }}
{{- $desired := "machineconfiguration.openshift.io/desiredConfig" }}
{{- $cel := semverCompare ">=1.28.0-0" $root.Capabilities.KubeVersion.Version }}
{{- $client := dict "service" (dict "name" (include "lockstep.name" $ctx) "namespace" $root.Release.Namespace "port" (int $w.port) "path" "/validate") }}
{{- if .caBundle }}{{ $_ := set $client "caBundle" (b64enc .caBundle) }}{{ end }}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: {{ include "lockstep.prefix" $root }}-leases
  labels:
    {{- include "lockstep.commonLabels" $root | nindent 4 }}
  {{- with .annotations }}
  annotations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
webhooks:
  - name: updates.leases.lockstep.io
    clientConfig:
      {{- toYaml $client | nindent 6 }}
    rules:
      - { apiGroups: [""], apiVersions: [v1], resources: [nodes], operations: [UPDATE], scope: Cluster }
    {{- if $cel }}
    matchConditions:
      - name: desired-config-changes
        expression: >-
          has(object.metadata.annotations) && '{{ $desired }}' in object.metadata.annotations &&
          !(has(oldObject.metadata.annotations) && '{{ $desired }}' in oldObject.metadata.annotations &&
          oldObject.metadata.annotations['{{ $desired }}'] == object.metadata.annotations['{{ $desired }}'])
    failurePolicy: {{ $w.failurePolicy.updates }}
    {{- else }}
    failurePolicy: Ignore
    {{- end }}
    sideEffects: None
    admissionReviewVersions: [v1]
    timeoutSeconds: {{ $w.timeoutSeconds }}
  - name: power-off.leases.lockstep.io
    clientConfig:
      {{- toYaml $client | nindent 6 }}
    rules:
      - { apiGroups: [metal3.io], apiVersions: ["*"], resources: [baremetalhosts], operations: [UPDATE], scope: Namespaced }
    {{- if $cel }}
    {{- /* Powers off, or on (metal3's default for an unset spec.online is off). */}}
    matchConditions:
      - name: powers-off-or-on
        expression: >-
          has(object.spec.online) && (object.spec.online == false ||
          !has(oldObject.spec.online) || oldObject.spec.online == false)
    failurePolicy: {{ $w.failurePolicy.powerOff }}
    {{- else }}
    failurePolicy: Ignore
    {{- end }}
    sideEffects: None
    admissionReviewVersions: [v1]
    timeoutSeconds: {{ $w.timeoutSeconds }}
  - name: node-disruptions.leases.lockstep.io
    clientConfig:
      {{- toYaml $client | nindent 6 }}
    rules:
      - { apiGroups: [""], apiVersions: [v1], resources: [nodes], operations: [UPDATE], scope: Cluster }
    {{- if $cel }}
    {{- /* The same exemptions as ADMISSION_TAINT_EXEMPT_KEYS (an entry ending in / is a prefix): the node lifecycle controller never calls it. */}}
    {{- $exempt := $w.taintExemptKeys | default (list "node.kubernetes.io/not-ready" "node.kubernetes.io/unreachable" "node.kubernetes.io/unschedulable" "node.kubernetes.io/memory-pressure" "node.kubernetes.io/disk-pressure" "node.kubernetes.io/pid-pressure" "node.kubernetes.io/network-unavailable" "node.cloudprovider.kubernetes.io/uninitialized" "node.cloudprovider.kubernetes.io/shutdown") }}
    {{- $keys := list }}{{- $prefixes := list }}
    {{- range $exempt }}{{ if hasSuffix "/" . }}{{ $prefixes = append $prefixes (printf "'%s'" .) }}{{ else }}{{ $keys = append $keys (printf "'%s'" .) }}{{ end }}{{ end }}
    matchConditions:
      - name: cordons-or-evicting-taints
        expression: >-
          has(object.spec) && (
          (has(object.spec.unschedulable) && object.spec.unschedulable == true &&
          !(has(oldObject.spec) && has(oldObject.spec.unschedulable) && oldObject.spec.unschedulable == true)) ||
          (has(object.spec.taints) && object.spec.taints.exists(t,
          (t.key == 'node.kubernetes.io/out-of-service' ||
          (t.effect == 'NoExecute' && !(t.key in [{{ join ", " $keys }}]) && ![{{ join ", " $prefixes }}].exists(p, t.key.startsWith(p)))) &&
          !(has(oldObject.spec) && has(oldObject.spec.taints) && oldObject.spec.taints.exists(o,
          o.key == t.key && o.effect == t.effect && (has(o.value) ? o.value : '') == (has(t.value) ? t.value : ''))))))
    failurePolicy: {{ $w.failurePolicy.nodeDisruptions }}
    {{- else }}
    failurePolicy: Ignore
    {{- end }}
    sideEffects: None
    admissionReviewVersions: [v1]
    timeoutSeconds: {{ $w.timeoutSeconds }}
  - name: others.leases.lockstep.io
    clientConfig:
      {{- toYaml $client | nindent 6 }}
    rules:
      - { apiGroups: [""], apiVersions: [v1], resources: [nodes], operations: [DELETE], scope: Cluster }
      - { apiGroups: [""], apiVersions: [v1], resources: [pods/eviction], operations: [CREATE], scope: Namespaced }
      - { apiGroups: [machine.openshift.io], apiVersions: ["*"], resources: [machines], operations: [UPDATE, DELETE], scope: Namespaced }
      - { apiGroups: [self-node-remediation.medik8s.io], apiVersions: ["*"], resources: [selfnoderemediations], operations: [CREATE], scope: Namespaced }
      - { apiGroups: [fence-agents-remediation.medik8s.io], apiVersions: ["*"], resources: [fenceagentsremediations], operations: [CREATE], scope: Namespaced }
    failurePolicy: {{ $w.failurePolicy.others }}
    sideEffects: None
    admissionReviewVersions: [v1]
    timeoutSeconds: {{ $w.timeoutSeconds }}
  {{- if ne $w.podDelete "Ignore" }}
  - name: pod-deletes.leases.lockstep.io
    clientConfig:
      {{- toYaml $client | nindent 6 }}
    rules:
      - { apiGroups: [""], apiVersions: [v1], resources: [pods], operations: [DELETE], scope: Namespaced }
    {{- if $cel }}
    matchConditions:
      - name: not-kubelet-or-kube-system
        expression: >-
          !request.userInfo.username.startsWith('system:node:') &&
          !request.userInfo.username.startsWith('system:serviceaccount:kube-system:')
    {{- end }}
    failurePolicy: {{ $w.failurePolicy.podDeletes }}
    sideEffects: None
    admissionReviewVersions: [v1]
    timeoutSeconds: {{ min $w.timeoutSeconds 3 }}
  {{- end }}
{{- end }}
