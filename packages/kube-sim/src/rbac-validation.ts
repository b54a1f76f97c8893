// Defaulting and validation of rbac.authorization.k8s.io/v1 objects, as kube-apiserver does them
// (pkg/apis/rbac/v1/defaults.go, pkg/apis/rbac/validation/validation.go): apiGroup defaults,
// rule shapes, roleRef kinds and immutability, subject kinds.
import { fieldInvalid, fieldNotSupported, fieldRequired, type FieldError } from "./errors.js";
import { deepEqual, isPlainObject } from "./json.js";
import { RBAC_GROUP } from "./rbac.js";
import type { KubeObject, TypeHooks } from "./types.js";

function validateRules(obj: KubeObject, namespaced: boolean): FieldError[] {
  const errs: FieldError[] = [];
  if (obj.rules === undefined || obj.rules === null) return errs;
  if (!Array.isArray(obj.rules)) return [fieldInvalid("rules", obj.rules, "must be a list")];
  obj.rules.forEach((rule: unknown, i: number) => {
    const p = `rules[${i}]`;
    if (!isPlainObject(rule)) return errs.push(fieldInvalid(p, rule, "must be an object"));
    const len = (k: string) => (Array.isArray(rule[k]) ? rule[k].length : 0);
    if (len("verbs") === 0) errs.push(fieldRequired(`${p}.verbs`, "verbs must contain at least one value"));
    if (len("nonResourceURLs") > 0) {
      if (namespaced) errs.push(fieldInvalid(`${p}.nonResourceURLs`, rule.nonResourceURLs, "namespaced rules cannot apply to non-resource URLs"));
      if (len("apiGroups") > 0 || len("resources") > 0 || len("resourceNames") > 0)
        errs.push(fieldInvalid(`${p}.nonResourceURLs`, rule.nonResourceURLs, "rules cannot apply to both regular resources and non-resource URLs"));
      return;
    }
    if (len("apiGroups") === 0) errs.push(fieldRequired(`${p}.apiGroups`, "resource rules must supply at least one api group"));
    if (len("resources") === 0) errs.push(fieldRequired(`${p}.resources`, "resource rules must supply at least one resource"));
  });
  return errs;
}

function defaultBinding(obj: KubeObject): void {
  if (isPlainObject(obj.roleRef) && !obj.roleRef.apiGroup) obj.roleRef.apiGroup = RBAC_GROUP;
  if (Array.isArray(obj.subjects))
    for (const s of obj.subjects) if (isPlainObject(s) && (s.kind === "User" || s.kind === "Group") && !s.apiGroup) s.apiGroup = RBAC_GROUP;
}

function validateBinding(obj: KubeObject, old: KubeObject | undefined, namespaced: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const ref = isPlainObject(obj.roleRef) ? obj.roleRef : {};
  if (ref.apiGroup !== RBAC_GROUP) errs.push(fieldNotSupported("roleRef.apiGroup", ref.apiGroup ?? "", [RBAC_GROUP]));
  const kinds = namespaced ? ["Role", "ClusterRole"] : ["ClusterRole"];
  if (!kinds.includes(ref.kind)) errs.push(fieldNotSupported("roleRef.kind", ref.kind ?? "", kinds));
  if (!ref.name) errs.push(fieldRequired("roleRef.name", ""));
  if (old && !deepEqual(old.roleRef, obj.roleRef)) errs.push(fieldInvalid("roleRef", obj.roleRef, "cannot change roleRef"));
  const subjects = obj.subjects ?? [];
  if (!Array.isArray(subjects)) return [...errs, fieldInvalid("subjects", subjects, "must be a list")];
  subjects.forEach((s: unknown, i: number) => {
    const p = `subjects[${i}]`;
    if (!isPlainObject(s)) return errs.push(fieldInvalid(p, s, "must be an object"));
    if (!s.name) errs.push(fieldRequired(`${p}.name`, ""));
    switch (s.kind) {
      case "ServiceAccount":
        if (s.apiGroup) errs.push(fieldNotSupported(`${p}.apiGroup`, s.apiGroup, [""]));
        if (!namespaced && !s.namespace) errs.push(fieldRequired(`${p}.namespace`, ""));
        break;
      case "User":
      case "Group":
        if (s.apiGroup !== RBAC_GROUP) errs.push(fieldNotSupported(`${p}.apiGroup`, s.apiGroup ?? "", [RBAC_GROUP]));
        break;
      default:
        errs.push(fieldNotSupported(`${p}.kind`, s.kind ?? "", ["ServiceAccount", "User", "Group"]));
    }
  });
  return errs;
}

export function roleHooks(namespaced: boolean): TypeHooks {
  return { validate: (obj) => validateRules(obj, namespaced) };
}

export function bindingHooks(namespaced: boolean): TypeHooks {
  return {
    prepareForCreate: defaultBinding,
    prepareForUpdate: defaultBinding,
    validate: (obj, old) => validateBinding(obj, old, namespaced),
  };
}
