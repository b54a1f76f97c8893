// RBAC evaluation, pure: does a user get a request through the Roles, ClusterRoles and their
// bindings? The rules and reason texts follow kubernetes plugin/pkg/auth/authorizer/rbac
// (rbac.go, subject_locator) and pkg/registry/rbac/validation/rule.go (VisitRulesFor).
import { matchesLabels, fromSelectorObject, type LabelSelectorObject } from "./selectors.js";
import type { KubeObject } from "./types.js";

export const RBAC_GROUP = "rbac.authorization.k8s.io";
/** Members of this group are allowed everything, before RBAC is consulted (the privileged-group authorizer). */
export const MASTERS_GROUP = "system:masters";

export interface UserInfo {
  username: string;
  uid?: string;
  groups: string[];
  extra?: Record<string, string[]>;
}

export interface PolicyRule {
  verbs?: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

export interface Subject {
  kind?: string;
  name?: string;
  namespace?: string;
  apiGroup?: string;
}

export interface RoleRef {
  kind?: string;
  name?: string;
  apiGroup?: string;
}

/** authorization.k8s.io/v1 ResourceAttributes (version is accepted and ignored, as RBAC does). */
export interface ResourceAttributes {
  namespace?: string;
  verb?: string;
  group?: string;
  version?: string;
  resource?: string;
  subresource?: string;
  name?: string;
}

export interface NonResourceAttributes {
  path?: string;
  verb?: string;
}

/** One request to decide: exactly one of `resource` / `nonResource`. */
export interface AccessRequest {
  user: UserInfo;
  resource?: ResourceAttributes;
  nonResource?: NonResourceAttributes;
}

export interface Decision {
  allowed: boolean;
  /** `RBAC: allowed by …` when allowed; when denied, empty or the errors met on the way. */
  reason: string;
}

/** Where the evaluator reads the RBAC objects from (the store, or a plain list in tests). */
export interface RbacSource {
  clusterRoleBindings(): KubeObject[];
  roleBindings(namespace: string): KubeObject[];
  role(namespace: string, name: string): KubeObject | undefined;
  clusterRole(name: string): KubeObject | undefined;
  clusterRoles(): KubeObject[];
}

/** A source over a list of objects (any mix of the four kinds; other kinds are ignored). */
export function sourceFromObjects(objects: KubeObject[]): RbacSource {
  const of = (kind: string) => objects.filter((o) => o.kind === kind);
  const nameOf = (o: KubeObject) => o.metadata?.name ?? "";
  const nsOf = (o: KubeObject) => o.metadata?.namespace ?? "";
  return {
    clusterRoleBindings: () => of("ClusterRoleBinding"),
    roleBindings: (ns) => of("RoleBinding").filter((o) => nsOf(o) === ns),
    role: (ns, name) => of("Role").find((o) => nsOf(o) === ns && nameOf(o) === name),
    clusterRole: (name) => of("ClusterRole").find((o) => nameOf(o) === name),
    clusterRoles: () => of("ClusterRole"),
  };
}

/** The full decision: privileged group first, then RBAC (no opinion = not allowed). */
export function authorize(source: RbacSource, req: AccessRequest): Decision {
  if (req.user.groups.includes(MASTERS_GROUP)) return { allowed: true, reason: "" };
  return rbacAuthorize(source, req);
}

/** RBACAuthorizer.Authorize: the first rule that allows wins; errors (missing roles) become the reason. */
export function rbacAuthorize(source: RbacSource, req: AccessRequest): Decision {
  const errors: string[] = [];
  const namespace = req.resource?.namespace ?? "";
  const allows = (rule: PolicyRule) => ruleAllows(req, rule);

  for (const b of source.clusterRoleBindings()) {
    const subject = appliesTo(req.user, b.subjects, "");
    if (!subject) continue;
    const rules = roleRefRules(source, b.roleRef, "", errors);
    if (rules?.some(allows)) return { allowed: true, reason: `RBAC: allowed by ${describeClusterRoleBinding(b, subject)}` };
  }
  if (namespace !== "") {
    for (const b of source.roleBindings(namespace)) {
      const subject = appliesTo(req.user, b.subjects, namespace);
      if (!subject) continue;
      const rules = roleRefRules(source, b.roleRef, namespace, errors);
      if (rules?.some(allows)) return { allowed: true, reason: `RBAC: allowed by ${describeRoleBinding(b, subject)}` };
    }
  }
  return { allowed: false, reason: errors.length === 0 ? "" : `RBAC: ${errors.length === 1 ? errors[0] : `[${errors.join(", ")}]`}` };
}

function roleRefRules(source: RbacSource, ref: RoleRef | undefined, bindingNamespace: string, errors: string[]): PolicyRule[] | undefined {
  const name = ref?.name ?? "";
  switch (ref?.kind) {
    case "Role": {
      const role = source.role(bindingNamespace, name);
      if (!role) {
        errors.push(`role.${RBAC_GROUP} "${name}" not found`);
        return undefined;
      }
      return rulesOf(role);
    }
    case "ClusterRole": {
      const role = source.clusterRole(name);
      if (!role) {
        errors.push(`clusterrole.${RBAC_GROUP} "${name}" not found`);
        return undefined;
      }
      return clusterRoleRules(source, role, new Set());
    }
    default:
      errors.push(`unsupported role reference kind: "${ref?.kind ?? ""}"`);
      return undefined;
  }
}

function rulesOf(role: KubeObject): PolicyRule[] {
  return Array.isArray(role.rules) ? (role.rules as PolicyRule[]) : [];
}

/**
 * A ClusterRole's rules; with an aggregationRule, the rules of every ClusterRole its selectors
 * match (transitively), as the clusterrole-aggregation controller would have written them.
 */
export function clusterRoleRules(source: RbacSource, role: KubeObject, seen: Set<string>): PolicyRule[] {
  const selectors = role.aggregationRule?.clusterRoleSelectors as LabelSelectorObject[] | undefined;
  if (!Array.isArray(selectors)) return rulesOf(role);
  seen.add(role.metadata?.name ?? "");
  const parsed = selectors.map((s) => fromSelectorObject(s)).filter((s) => s !== undefined);
  const out: PolicyRule[] = [];
  const others = source
    .clusterRoles()
    .filter((r) => !seen.has(r.metadata?.name ?? ""))
    .sort((a, b) => (a.metadata?.name ?? "").localeCompare(b.metadata?.name ?? ""));
  for (const other of others) {
    if (!parsed.some((sel) => matchesLabels(sel!, other.metadata?.labels))) continue;
    for (const rule of clusterRoleRules(source, other, seen)) if (!out.some((r) => sameRule(r, rule))) out.push(rule);
  }
  return out;
}

function sameRule(a: PolicyRule, b: PolicyRule): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** The first subject of the binding that names the user (appliesTo in rule.go). */
export function appliesTo(user: UserInfo, subjects: unknown, bindingNamespace: string): Subject | undefined {
  if (!Array.isArray(subjects)) return undefined;
  return (subjects as Subject[]).find((s) => subjectMatches(user, s, bindingNamespace));
}

export function subjectMatches(user: UserInfo, s: Subject, bindingNamespace: string): boolean {
  switch (s.kind) {
    case "User":
      return user.username === s.name;
    case "Group":
      return s.name !== undefined && user.groups.includes(s.name);
    case "ServiceAccount": {
      // A subject without a namespace means the binding's own namespace (none for ClusterRoleBindings).
      const ns = s.namespace || bindingNamespace;
      if (!ns) return false;
      return user.username === serviceAccountUsername(ns, s.name ?? "");
    }
    default:
      return false;
  }
}

export function serviceAccountUsername(namespace: string, name: string): string {
  return `system:serviceaccount:${namespace}:${name}`;
}

/** RuleAllows: verbs, apiGroups, resources (also `*` + `/sub` forms), resourceNames; or verbs + nonResourceURLs. */
export function ruleAllows(req: Pick<AccessRequest, "resource" | "nonResource">, rule: PolicyRule): boolean {
  if (req.resource) {
    const r = req.resource;
    const sub = r.subresource ?? "";
    const combined = sub ? `${r.resource ?? ""}/${sub}` : (r.resource ?? "");
    return (
      verbMatches(rule, r.verb ?? "") &&
      matchesOrStar(rule.apiGroups, r.group ?? "") &&
      resourceMatches(rule, combined, sub) &&
      resourceNameMatches(rule, r.name ?? "")
    );
  }
  const n = req.nonResource ?? {};
  return verbMatches(rule, n.verb ?? "") && nonResourceURLMatches(rule, n.path ?? "");
}

function matchesOrStar(list: string[] | undefined, value: string): boolean {
  return Array.isArray(list) && list.some((x) => x === "*" || x === value);
}

function verbMatches(rule: PolicyRule, verb: string): boolean {
  return matchesOrStar(rule.verbs, verb);
}

function resourceMatches(rule: PolicyRule, combined: string, subresource: string): boolean {
  for (const res of rule.resources ?? []) {
    if (res === "*" || res === combined) return true;
    if (subresource && res === `*/${subresource}`) return true;
  }
  return false;
}

function resourceNameMatches(rule: PolicyRule, name: string): boolean {
  const names = rule.resourceNames ?? [];
  return names.length === 0 || names.includes(name);
}

function nonResourceURLMatches(rule: PolicyRule, path: string): boolean {
  for (const url of rule.nonResourceURLs ?? []) {
    if (url === "*" || url === path) return true;
    if (url.endsWith("*") && path.startsWith(url.replace(/\*+$/, ""))) return true;
  }
  return false;
}

function describeSubject(s: Subject, bindingNamespace: string): string {
  if (s.kind === "ServiceAccount") return `${s.kind} ${JSON.stringify(`${s.name ?? ""}/${s.namespace || bindingNamespace}`)}`;
  return `${s.kind} ${JSON.stringify(s.name ?? "")}`;
}

function describeClusterRoleBinding(b: KubeObject, s: Subject): string {
  return `ClusterRoleBinding ${JSON.stringify(b.metadata?.name ?? "")} of ${b.roleRef?.kind} ${JSON.stringify(b.roleRef?.name ?? "")} to ${describeSubject(s, "")}`;
}

function describeRoleBinding(b: KubeObject, s: Subject): string {
  const ns = b.metadata?.namespace ?? "";
  return `RoleBinding ${JSON.stringify(`${b.metadata?.name ?? ""}/${ns}`)} of ${b.roleRef?.kind} ${JSON.stringify(b.roleRef?.name ?? "")} to ${describeSubject(s, ns)}`;
}
