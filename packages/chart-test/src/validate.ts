// Structural validation of rendered manifests, per kind: the fields Kubernetes requires, the fields
// it knows (a misspelt key is an error here, as `kubectl apply --validate=strict` would make it),
// agreement between objects (selectors ↔ pod labels, named ports ↔ container ports, bindings ↔
// roles and service accounts) and the chart's security defaults. Pure: manifests in, problems out.
import type { Manifest } from "./chart.js";

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === "object" && !Array.isArray(v);
const arr = (v: unknown): Obj[] => (Array.isArray(v) ? (v as Obj[]) : []);

/** apiVersion/kind pairs the chart may emit, and whether the kind is namespaced. */
export const KNOWN_KINDS: Record<string, { apiVersion: string; namespaced: boolean }> = {
  Namespace: { apiVersion: "v1", namespaced: false },
  ServiceAccount: { apiVersion: "v1", namespaced: true },
  Service: { apiVersion: "v1", namespaced: true },
  ConfigMap: { apiVersion: "v1", namespaced: true },
  Secret: { apiVersion: "v1", namespaced: true },
  Certificate: { apiVersion: "cert-manager.io/v1", namespaced: true },
  Deployment: { apiVersion: "apps/v1", namespaced: true },
  PodDisruptionBudget: { apiVersion: "policy/v1", namespaced: true },
  NetworkPolicy: { apiVersion: "networking.k8s.io/v1", namespaced: true },
  ClusterRole: { apiVersion: "rbac.authorization.k8s.io/v1", namespaced: false },
  ClusterRoleBinding: { apiVersion: "rbac.authorization.k8s.io/v1", namespaced: false },
  Role: { apiVersion: "rbac.authorization.k8s.io/v1", namespaced: true },
  RoleBinding: { apiVersion: "rbac.authorization.k8s.io/v1", namespaced: true },
  ServiceMonitor: { apiVersion: "monitoring.coreos.com/v1", namespaced: true },
  PrometheusRule: { apiVersion: "monitoring.coreos.com/v1", namespaced: true },
  NodeDisruptionPolicy: { apiVersion: "lockstep.io/v1alpha1", namespaced: false },
  ValidatingWebhookConfiguration: { apiVersion: "admissionregistration.k8s.io/v1", namespaced: false },
};

// ClusterRoles the platform ships that the chart binds without rendering them: OpenShift's read
// access to the cluster's monitoring (the status-aggregator's alert source).
const CLUSTER_ROLES_OF_THE_PLATFORM = new Set(["cluster-monitoring-view"]);

// Known fields of the nested objects the chart writes (a subset of the Kubernetes OpenAPI: enough
// that any key the chart emits is checked). "*" = free-form (passed through from values).
const FIELDS: Record<string, string[]> = {
  metadata: ["name", "namespace", "labels", "annotations"],
  "Deployment.spec": ["replicas", "revisionHistoryLimit", "selector", "template", "strategy"],
  podTemplate: ["metadata", "spec"],
  podSpec: [
    "serviceAccountName", "automountServiceAccountToken", "enableServiceLinks", "imagePullSecrets", "securityContext",
    "terminationGracePeriodSeconds", "containers", "volumes", "nodeSelector", "tolerations", "affinity",
    "topologySpreadConstraints",
  ],
  topologySpreadConstraint: [
    "maxSkew", "topologyKey", "whenUnsatisfiable", "labelSelector", "matchLabelKeys", "minDomains", "nodeAffinityPolicy", "nodeTaintsPolicy",
  ],
  container: [
    "name", "image", "imagePullPolicy", "command", "args", "ports", "env", "livenessProbe", "readinessProbe",
    "startupProbe", "resources", "securityContext", "volumeMounts",
  ],
  containerPort: ["name", "containerPort", "protocol"],
  env: ["name", "value", "valueFrom"],
  probe: ["grpc", "httpGet", "initialDelaySeconds", "periodSeconds", "timeoutSeconds", "failureThreshold", "successThreshold"],
  volume: ["name", "emptyDir", "secret", "configMap"],
  volumeMount: ["name", "mountPath", "readOnly", "subPath"],
  "Service.spec": ["type", "selector", "ports"],
  servicePort: ["name", "port", "targetPort", "protocol", "appProtocol"],
  "PodDisruptionBudget.spec": ["maxUnavailable", "minAvailable", "selector", "unhealthyPodEvictionPolicy"],
  "NetworkPolicy.spec": ["podSelector", "policyTypes", "ingress", "egress"],
  policyRule: ["apiGroups", "resources", "resourceNames", "verbs"],
};

const VERBS = new Set(["get", "list", "watch", "create", "update", "patch", "delete", "deletecollection"]);
/**
 * Verbs of Lockstep's own authorization resource (lockstep.io nodeleases, checked by the
 * lease-coordinator with SubjectAccessReviews when LEASE_AUTH is on; no such API objects exist).
 */
const NODELEASE_VERBS = new Set(["get", "list", "watch", "acquire", "release-any", "force"]);
const SUBJECT_KINDS = new Set(["User", "Group", "ServiceAccount"]);
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const ENV_NAME = /^[-._a-zA-Z][-._a-zA-Z0-9]*$/;

export function matches(selector: Obj | undefined, labels: Obj | undefined): boolean {
  if (!selector || Object.keys(selector).length === 0) return false;
  return Object.entries(selector).every(([k, v]) => labels?.[k] === v);
}

export function validateManifests(manifests: Manifest[]): string[] {
  const problems: string[] = [];
  const at = (m: Manifest) => `${m.kind}/${m.metadata?.name ?? "?"} (${m.source})`;
  const add = (m: Manifest, msg: string) => problems.push(`${at(m)}: ${msg}`);
  const keys = (m: Manifest, o: unknown, kind: string, path: string) => {
    if (!isObj(o)) return add(m, `${path} must be an object`);
    for (const k of Object.keys(o)) if (!FIELDS[kind]!.includes(k)) add(m, `unknown field ${path}.${k}`);
  };
  const ofKind = (k: string) => manifests.filter((m) => m.kind === k);
  const deployments = ofKind("Deployment");
  const podLabels = (d: Manifest) => ((d.spec as Obj)?.template as Obj)?.metadata as Obj | undefined;
  const containersOf = (d: Manifest) => arr((((d.spec as Obj)?.template as Obj)?.spec as Obj)?.containers);
  const selected = (sel: Obj | undefined, ns: string | undefined) =>
    deployments.filter((d) => d.metadata.namespace === ns && matches(sel, podLabels(d)?.labels as Obj));

  const seen = new Set<string>();
  for (const m of manifests) {
    const known = KNOWN_KINDS[m.kind];
    if (!known) {
      add(m, `kind ${m.kind} is not one the chart is expected to emit`);
      continue;
    }
    if (m.apiVersion !== known.apiVersion) add(m, `apiVersion ${m.apiVersion}, expected ${known.apiVersion}`);
    keys(m, m.metadata, "metadata", "metadata");
    const name = m.metadata?.name ?? "";
    const nameRule = m.kind === "Namespace" || m.kind === "Service" ? DNS_LABEL : DNS_SUBDOMAIN;
    if (!nameRule.test(name) || name.length > (nameRule === DNS_LABEL ? 63 : 253)) add(m, `invalid name "${name}"`);
    if (known.namespaced !== (m.metadata?.namespace !== undefined)) add(m, known.namespaced ? "namespace missing" : "cluster-scoped object has a namespace");
    const id = `${m.apiVersion}/${m.kind}/${m.metadata?.namespace ?? ""}/${name}`;
    if (seen.has(id)) add(m, "rendered twice");
    seen.add(id);
    for (const [k, v] of Object.entries(m.metadata?.labels ?? {}))
      if (typeof v !== "string" || v.length > 63 || !LABEL_VALUE.test(v)) add(m, `label ${k} has an invalid value ${JSON.stringify(v)}`);
    for (const [k, v] of Object.entries(m.metadata?.annotations ?? {})) if (typeof v !== "string") add(m, `annotation ${k} must be a string`);
  }

  for (const d of deployments) {
    const spec = d.spec as Obj;
    keys(d, spec, "Deployment.spec", "spec");
    if (!Number.isInteger(spec?.replicas) || (spec.replicas as number) < 0) add(d, "spec.replicas must be a non-negative integer");
    const sel = (spec?.selector as Obj)?.matchLabels as Obj | undefined;
    const tpl = spec?.template as Obj;
    keys(d, tpl, "podTemplate", "spec.template");
    keys(d, tpl?.metadata, "metadata", "spec.template.metadata");
    const labels = (tpl?.metadata as Obj)?.labels as Obj | undefined;
    if (!matches(sel, labels)) add(d, "spec.selector.matchLabels does not match the pod template labels");
    for (const l of ["app.kubernetes.io/name", "app.kubernetes.io/instance", "app.kubernetes.io/component"])
      if (!sel?.[l]) add(d, `selector lacks ${l}`);
    const pod = tpl?.spec as Obj;
    keys(d, pod, "podSpec", "spec.template.spec");
    const psc = pod?.securityContext as Obj;
    if (psc?.runAsNonRoot !== true) add(d, "pod securityContext.runAsNonRoot must be true");
    if ((psc?.seccompProfile as Obj)?.type !== "RuntimeDefault") add(d, "pod seccompProfile must be RuntimeDefault");
    const sa = pod?.serviceAccountName;
    if (!manifests.some((m) => m.kind === "ServiceAccount" && m.metadata.name === sa && m.metadata.namespace === d.metadata.namespace))
      add(d, `service account ${String(sa)} is not rendered`);
    // A spread whose selector misses the Deployment's own pods spreads nothing.
    arr(pod?.topologySpreadConstraints).forEach((t, i) => {
      const tp = `topologySpreadConstraints[${i}]`;
      keys(d, t, "topologySpreadConstraint", tp);
      if (!Number.isInteger(t.maxSkew) || (t.maxSkew as number) < 1) add(d, `${tp}: maxSkew must be a positive integer`);
      if (typeof t.topologyKey !== "string" || t.topologyKey === "") add(d, `${tp}: topologyKey missing`);
      if (t.whenUnsatisfiable !== "ScheduleAnyway" && t.whenUnsatisfiable !== "DoNotSchedule") add(d, `${tp}: whenUnsatisfiable must be ScheduleAnyway or DoNotSchedule`);
      if (!matches((t.labelSelector as Obj)?.matchLabels as Obj, labels)) add(d, `${tp}: labelSelector does not match the pod template labels`);
    });
    const volumes = arr(pod?.volumes);
    volumes.forEach((v, i) => keys(d, v, "volume", `volumes[${i}]`));
    const volumeNames = new Set(volumes.map((v) => v.name));
    const containers = arr(pod?.containers);
    if (containers.length === 0) add(d, "no containers");
    for (const c of containers) {
      const cp = `container ${String(c.name)}`;
      keys(d, c, "container", cp);
      if (!c.image || typeof c.image !== "string" || !c.image.includes(":")) add(d, `${cp}: image must be repository:tag`);
      const ports = arr(c.ports);
      ports.forEach((p, i) => keys(d, p, "containerPort", `${cp}.ports[${i}]`));
      const portNames = new Set(ports.map((p) => p.name));
      for (const p of ports) {
        if (typeof p.name !== "string" || p.name.length > 15) add(d, `${cp}: port name ${String(p.name)} invalid`);
        if (!Number.isInteger(p.containerPort) || (p.containerPort as number) < 1 || (p.containerPort as number) > 65535) add(d, `${cp}: bad containerPort`);
      }
      const envNames = new Set<string>();
      for (const e of arr(c.env)) {
        keys(d, e, "env", `${cp}.env`);
        if (typeof e.name !== "string" || !ENV_NAME.test(e.name)) add(d, `${cp}: bad env name ${String(e.name)}`);
        if (envNames.has(e.name as string)) add(d, `${cp}: env ${String(e.name)} set twice`);
        envNames.add(e.name as string);
        if (("value" in e) === ("valueFrom" in e)) add(d, `${cp}: env ${String(e.name)} needs exactly one of value/valueFrom`);
        if ("value" in e && typeof e.value !== "string") add(d, `${cp}: env ${String(e.name)} value must be a string`);
      }
      for (const probeName of ["livenessProbe", "readinessProbe"]) {
        const probe = c[probeName] as Obj | undefined;
        if (!probe) {
          add(d, `${cp}: ${probeName} missing`);
          continue;
        }
        keys(d, probe, "probe", `${cp}.${probeName}`);
        const http = probe.httpGet as Obj | undefined;
        const grpc = probe.grpc as Obj | undefined;
        if (!!http === !!grpc) add(d, `${cp}: ${probeName} needs exactly one of httpGet/grpc`);
        if (http && typeof http.port === "string" && !portNames.has(http.port)) add(d, `${cp}: ${probeName} port ${http.port} is not a container port`);
        if (grpc && !ports.some((p) => p.containerPort === grpc.port)) add(d, `${cp}: ${probeName} grpc port ${String(grpc.port)} is not a container port`);
      }
      for (const vm of arr(c.volumeMounts)) {
        keys(d, vm, "volumeMount", `${cp}.volumeMounts`);
        if (!volumeNames.has(vm.name)) add(d, `${cp}: volumeMount ${String(vm.name)} has no volume`);
      }
      const sc = c.securityContext as Obj;
      if (sc?.allowPrivilegeEscalation !== false) add(d, `${cp}: allowPrivilegeEscalation must be false`);
      if (sc?.readOnlyRootFilesystem !== true) add(d, `${cp}: readOnlyRootFilesystem must be true`);
      if (sc?.runAsNonRoot !== true) add(d, `${cp}: runAsNonRoot must be true`);
      if (!arr((sc?.capabilities as Obj)?.drop).includes("ALL" as unknown as Obj)) add(d, `${cp}: capabilities must drop ALL`);
      if (!isObj(c.resources) || !isObj((c.resources as Obj).requests)) add(d, `${cp}: resources.requests missing`);
    }
  }

  for (const s of ofKind("Service")) {
    const spec = s.spec as Obj;
    keys(s, spec, "Service.spec", "spec");
    const targets = selected(spec?.selector as Obj, s.metadata.namespace);
    if (targets.length !== 1) add(s, `selector matches ${targets.length} Deployments, expected 1`);
    for (const p of arr(spec?.ports)) {
      keys(s, p, "servicePort", "spec.ports");
      for (const d of targets) {
        const cport = containersOf(d).flatMap((c) => arr(c.ports)).find((cp) => cp.name === p.targetPort);
        if (!cport) add(s, `targetPort ${String(p.targetPort)} is not a port of ${d.metadata.name}`);
        else if (cport.containerPort !== p.port) add(s, `port ${String(p.port)} differs from container port ${String(cport.containerPort)}`);
      }
    }
  }

  for (const p of ofKind("PodDisruptionBudget")) {
    const spec = p.spec as Obj;
    keys(p, spec, "PodDisruptionBudget.spec", "spec");
    if (("maxUnavailable" in spec) === ("minAvailable" in spec)) add(p, "needs exactly one of maxUnavailable/minAvailable");
    if (selected((spec?.selector as Obj)?.matchLabels as Obj, p.metadata.namespace).length !== 1) add(p, "selector must match exactly one Deployment");
  }

  for (const n of ofKind("NetworkPolicy")) {
    const spec = n.spec as Obj;
    keys(n, spec, "NetworkPolicy.spec", "spec");
    const targets = selected((spec?.podSelector as Obj)?.matchLabels as Obj, n.metadata.namespace);
    if (targets.length !== 1) add(n, "podSelector must match exactly one Deployment");
    const names = new Set(targets.flatMap(containersOf).flatMap((c) => arr(c.ports)).map((p) => p.name));
    for (const rule of arr(spec?.ingress))
      for (const port of arr(rule.ports)) if (typeof port.port === "string" && !names.has(port.port)) add(n, `ingress port ${port.port} is not a container port`);
    for (const rule of arr(spec?.egress)) for (const port of arr(rule.ports)) if (!Number.isInteger(port.port)) add(n, "egress ports must be numbers");
  }

  for (const r of [...ofKind("Role"), ...ofKind("ClusterRole")]) {
    const rules = arr(r.rules);
    if (rules.length === 0) add(r, "has no rules");
    for (const rule of rules) {
      keys(r, rule, "policyRule", "rules[]");
      for (const f of ["apiGroups", "resources", "verbs"]) if (arr(rule[f]).length === 0) add(r, `rule without ${f}`);
      const nodeleases = JSON.stringify(rule.apiGroups) === '["lockstep.io"]' && JSON.stringify(rule.resources) === '["nodeleases"]';
      for (const v of arr(rule.verbs) as unknown as string[]) if (!(nodeleases ? NODELEASE_VERBS : VERBS).has(v)) add(r, `unknown or wildcard verb ${v}`);
      for (const f of ["apiGroups", "resources", "resourceNames"]) if ((arr(rule[f]) as unknown as string[]).includes("*")) add(r, `wildcard in ${f}`);
    }
  }

  for (const b of [...ofKind("RoleBinding"), ...ofKind("ClusterRoleBinding")]) {
    const ref = b.roleRef as Obj;
    const role = manifests.find(
      (m) => m.kind === ref?.kind && m.metadata.name === ref?.name && (m.kind === "ClusterRole" || m.metadata.namespace === b.metadata.namespace),
    );
    const external = ref?.kind === "ClusterRole" && CLUSTER_ROLES_OF_THE_PLATFORM.has(String(ref?.name));
    if (ref?.apiGroup !== "rbac.authorization.k8s.io" || (!role && !external)) add(b, `roleRef ${String(ref?.kind)}/${String(ref?.name)} is not rendered`);
    const subjects = arr(b.subjects);
    if (subjects.length === 0) add(b, "has no subjects");
    // The services' own bindings name their rendered ServiceAccounts; the lease-access bindings
    // (leaseAuth.users / admins) name users, groups and ServiceAccounts of the cluster.
    const ownRole = external || (role && arr(role.rules).every((rule) => !(rule.resources as unknown as string[] | undefined)?.includes("nodeleases")));
    for (const s of subjects) {
      if (ownRole) {
        if (s.kind !== "ServiceAccount" || !manifests.some((m) => m.kind === "ServiceAccount" && m.metadata.name === s.name && m.metadata.namespace === s.namespace))
          add(b, `subject ${String(s.kind)}/${String(s.name)} is not a rendered ServiceAccount`);
        continue;
      }
      if (!SUBJECT_KINDS.has(s.kind as string) || typeof s.name !== "string" || s.name === "") add(b, `subject ${String(s.kind)}/${String(s.name)} is not a User, Group or ServiceAccount with a name`);
      else if (s.kind === "ServiceAccount" ? !s.namespace || "apiGroup" in s : s.apiGroup !== "rbac.authorization.k8s.io" || "namespace" in s)
        add(b, `subject ${String(s.kind)}/${String(s.name)}: a ServiceAccount needs a namespace, a User or Group apiGroup rbac.authorization.k8s.io`);
    }
  }

  for (const pr of ofKind("PrometheusRule")) {
    const groups = arr((pr.spec as Obj)?.groups);
    if (groups.length === 0) add(pr, "has no rule groups");
    for (const g of groups)
      for (const rule of arr(g.rules)) {
        const name = String(rule.alert ?? rule.record);
        if (typeof rule.expr !== "string" || rule.expr === "") add(pr, `${name}: no expr`);
        if (rule.alert === undefined) continue;
        if (!["critical", "warning", "info"].includes(String((rule.labels as Obj)?.severity))) add(pr, `${name}: severity must be critical, warning or info`);
        for (const a of ["summary", "description"]) if (!(rule.annotations as Obj)?.[a]) add(pr, `${name}: no ${a} annotation`);
      }
  }

  for (const sm of ofKind("ServiceMonitor")) {
    const spec = sm.spec as Obj;
    const services = ofKind("Service").filter((s) => matches((spec?.selector as Obj)?.matchLabels as Obj, s.metadata.labels));
    if (services.length === 0) add(sm, "selects no Service");
    for (const e of arr(spec?.endpoints))
      for (const s of services) if (!arr((s.spec as Obj).ports).some((p) => p.name === e.port)) add(sm, `Service ${s.metadata.name} has no port ${String(e.port)}`);
  }
  return problems;
}
