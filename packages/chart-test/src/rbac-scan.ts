// Derives the Kubernetes API calls a service makes from its source text, as RBAC triples
// (apiGroup, resource, verb). Deliberately simple and static:
//
// 1. Receivers: `<x> = <kc>.makeApiClient(<ApiClass>)` or `<x> = make…ApiClient(<kc>, <ApiClass>)`
//    (a const or a field). Every method called
//    on such a receiver is an API call; its name gives the verb and, for typed APIs, the kind:
//    `readNamespacedLease` → get leases, `replaceNamespacedLease` → update leases,
//    `patchClusterCustomObjectStatus` → patch <plural>/status, and so on.
// 2. Custom objects: group and plural come from the call's argument object. Identifiers in it that
//    are `const`s of the same file are substituted by their initialiser (spreads too, up to three
//    levels), then either one `Resources.<name>` (from @lockstep/kube) or literal
//    `group: "..."` and `plural: "..."` must appear.
// 3. Informers (`new Informer(kc, resource, ...)` from @lockstep/kube) list and watch. A
//    `Resources.<name>` argument names the resource; any other argument stands for every
//    `resource: Resources.<name>` entry in the service's sources (the watcher's watched table).
//
// Anything else that reaches the API server (KubernetesObjectApi, Watch, makeInformer, an unknown
// API class or method, arguments the rules above cannot resolve) is reported as unresolved, so the
// RBAC test fails with a message instead of silently missing a permission.

export interface ResourceRow {
  apiVersion: string;
  plural: string;
}

export interface ApiCall {
  file: string;
  line: number;
  call: string;
  group: string;
  resource: string;
  verb: string;
}

export interface ScanResult {
  calls: ApiCall[];
  unresolved: string[];
}

/** API classes of client-node and the group each serves. */
const API_GROUPS: Record<string, string> = {
  CoreV1Api: "",
  CoordinationV1Api: "coordination.k8s.io",
  PolicyV1Api: "policy",
  AppsV1Api: "apps",
  AuthenticationV1Api: "authentication.k8s.io",
  AuthorizationV1Api: "authorization.k8s.io",
  CustomObjectsApi: "(custom)",
};

/** Kinds of the typed APIs and their plural resource names. */
const PLURALS: Record<string, string> = {
  Lease: "leases",
  Namespace: "namespaces",
  Node: "nodes",
  ConfigMap: "configmaps",
  Pod: "pods",
  Event: "events",
  Secret: "secrets",
  PodDisruptionBudget: "poddisruptionbudgets",
  Deployment: "deployments",
  TokenReview: "tokenreviews",
  SubjectAccessReview: "subjectaccessreviews",
};

const VERB_OF: Record<string, string> = {
  read: "get",
  get: "get",
  list: "list",
  create: "create",
  replace: "update",
  patch: "patch",
  delete: "delete",
  deleteCollection: "deletecollection",
};

const METHOD = /^(read|get|list|create|replace|patch|deleteCollection|delete)(Namespaced|Cluster)?([A-Z][A-Za-z]*?)(ForAllNamespaces)?(Status|Scale)?$/;

const lineAt = (text: string, index: number) => text.slice(0, index).split("\n").length;

/** The text between the "(" at `open` and its matching ")". */
function argsAt(text: string, open: number): string {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    const c = text[i];
    if (c === "(") depth++;
    else if (c === ")" && --depth === 0) return text.slice(open + 1, i);
    else if (c === '"' || c === "'" || c === "`") {
      const end = text.indexOf(c, i + 1);
      if (end < 0) break;
      i = end;
    }
  }
  return text.slice(open + 1);
}

/** `const NAME = init;` declarations of a file (any nesting level; first wins). */
function constsOf(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const m of text.matchAll(/\bconst\s+([A-Za-z_$][\w$]*)\s*(?::[^=]+)?=\s*([\s\S]*?);\s*(?:\/\/[^\n]*)?\n/g))
    if (!out.has(m[1]!)) out.set(m[1]!, m[2]!);
  return out;
}

function expand(args: string, consts: Map<string, string>): string {
  let text = args;
  for (let round = 0; round < 3; round++) {
    text = text.replace(/(?<![\w$])(?<!(?<!\.\.)\.)([A-Za-z_$][\w$]*)\b/g, (id) => consts.get(id) ?? id);
  }
  return text;
}

function splitApiVersion(apiVersion: string): string {
  return apiVersion.includes("/") ? apiVersion.split("/")[0]! : "";
}

/** Group and plural of a custom-object call's argument text, or why not. */
export function resolveCustomObject(args: string, consts: Map<string, string>, resources: Record<string, ResourceRow>): { group: string; plural: string } | string {
  const text = expand(args, consts);
  const named = [...new Set([...text.matchAll(/\bResources\.(\w+)/g)].map((m) => m[1]!))];
  if (named.length === 1) {
    const r = resources[named[0]!];
    if (!r) return `Resources.${named[0]} is not in @lockstep/kube's Resources table`;
    return { group: splitApiVersion(r.apiVersion), plural: r.plural };
  }
  if (named.length > 1) return `the arguments name several resources (${named.join(", ")})`;
  const group = /\bgroup\s*:\s*["']([^"']+)["']/.exec(text)?.[1];
  const plural = /\bplural\s*:\s*["']([^"']+)["']/.exec(text)?.[1];
  if (group && plural) return { group, plural };
  return "group/plural are not a Resources.<name> entry or string literals of this file";
}

/**
 * Scans a service's sources (path → text, tests already excluded) for API calls.
 * `resources` is @lockstep/kube's `Resources` table.
 */
export function scanSources(files: Record<string, string>, resources: Record<string, ResourceRow>): ScanResult {
  const calls: ApiCall[] = [];
  const unresolved: string[] = [];
  const allText = Object.values(files).join("\n");
  for (const [file, text] of Object.entries(files)) {
    const consts = constsOf(text);
    const where = (i: number) => `${file}:${lineAt(text, i)}`;

    for (const m of text.matchAll(/\bKubernetesObjectApi\s*\.\s*makeApiClient\b|\bmakeInformer\s*\(|\bnew\s+Watch\s*\(/g))
      unresolved.push(`${where(m.index)}: ${m[0]} is not resolved statically; use a typed API client or @lockstep/kube's Informer`);

    // Receivers of makeApiClient(Api), and of wrappers named make<Something>ApiClient(kc, Api, ...)
    // (e.g. the lease-coordinator's keep-alive client).
    const receivers = new Map<string, string>();
    for (const m of text.matchAll(/(?<!KubernetesObjectApi\s*\.\s*)make\w*ApiClient\s*\(\s*(?:[\w.]+\s*,\s*)?(\w+)\s*(?:,[^)]*)?\)/g)) {
      const before = text.slice(Math.max(0, text.lastIndexOf("\n", m.index)), m.index);
      const r = /(?:this\.)?(\w+)\s*(?::[^=]+)?=\s*[\w.]*$/.exec(before);
      if (!r) {
        unresolved.push(`${where(m.index)}: makeApiClient(${m[1]}) is not assigned to a named receiver`);
        continue;
      }
      if (!(m[1]! in API_GROUPS)) {
        unresolved.push(`${where(m.index)}: API class ${m[1]} is not known to the scanner`);
        continue;
      }
      receivers.set(r[1]!, m[1]!);
    }

    for (const [recv, apiClass] of receivers) {
      const re = new RegExp(`(?:this\\.)?(?<![\\w$])${recv}\\s*\\.\\s*(\\w+)\\s*\\(`, "g");
      for (const m of text.matchAll(re)) {
        const method = m[1]!;
        const open = m.index + m[0].length - 1;
        const parsed = METHOD.exec(method);
        const verb = parsed ? VERB_OF[parsed[1]!] : undefined;
        if (!parsed || !verb) {
          unresolved.push(`${where(m.index)}: ${apiClass}.${method} is not a method the scanner understands`);
          continue;
        }
        const sub = parsed[5] ? `/${parsed[5].toLowerCase()}` : "";
        let group: string;
        let plural: string;
        if (parsed[3] === "CustomObject") {
          const res = resolveCustomObject(argsAt(text, open), consts, resources);
          if (typeof res === "string") {
            unresolved.push(`${where(m.index)}: ${method}: ${res}`);
            continue;
          }
          ({ group, plural } = res);
        } else {
          const p = PLURALS[parsed[3]!];
          if (!p || apiClass === "CustomObjectsApi") {
            unresolved.push(`${where(m.index)}: ${apiClass}.${method}: kind ${parsed[3]} is not known to the scanner`);
            continue;
          }
          group = API_GROUPS[apiClass]!;
          plural = p;
        }
        calls.push({ file, line: lineAt(text, m.index), call: method, group, resource: plural + sub, verb });
      }
    }

    for (const m of text.matchAll(/\bnew\s+Informer\s*(?:<[^>]*>)?\s*\(/g)) {
      const args = argsAt(text, m.index + m[0].length - 1);
      const second = args.split(",")[1]?.trim() ?? "";
      const direct = /^Resources\.(\w+)$/.exec(second);
      const names = direct ? [direct[1]!] : [...new Set([...allText.matchAll(/\bresource\s*:\s*Resources\.(\w+)/g)].map((x) => x[1]!))];
      if (names.length === 0) {
        unresolved.push(`${where(m.index)}: Informer resource "${second}" is neither Resources.<name> nor backed by resource: Resources.<name> entries`);
        continue;
      }
      for (const name of names) {
        const r = resources[name];
        if (!r) {
          unresolved.push(`${where(m.index)}: Resources.${name} is not in @lockstep/kube's Resources table`);
          continue;
        }
        for (const verb of ["list", "watch"])
          calls.push({ file, line: lineAt(text, m.index), call: `Informer(Resources.${name})`, group: splitApiVersion(r.apiVersion), resource: r.plural, verb });
      }
    }
  }
  return { calls, unresolved };
}

/** "group|resource|verb" keys of calls or rules. */
export const tripleKey = (t: { group: string; resource: string; verb: string }) => `${t.group}|${t.resource}|${t.verb}`;
