// URL grammar (kube-api.md §2): /api/v1/... and /apis/{group}/{version}/... for collections,
// objects and subresources, cluster-scoped or under namespaces/{ns}.

export type Route =
  | { kind: "plain"; path: string }
  | { kind: "admin"; path: string }
  | { kind: "discovery-root"; core: boolean }
  | { kind: "discovery-group"; group: string }
  | { kind: "discovery-version"; group: string; version: string }
  | {
      kind: "resource";
      group: string;
      version: string;
      /** Namespace from the URL (undefined for cluster-wide paths). */
      namespace?: string;
      plural: string;
      name?: string;
      subresource?: string;
    }
  | { kind: "unknown" };

const NAMESPACE_SUBRESOURCES = new Set(["status", "finalize"]);

export function parsePath(pathname: string): Route {
  if (pathname.startsWith("/_sim/") || pathname === "/_sim") return { kind: "admin", path: pathname };
  const parts = pathname.split("/").filter((p) => p !== "").map(decodeURIComponent);
  if (parts.length === 0) return { kind: "plain", path: "/" };
  let group: string;
  let version: string;
  let rest: string[];
  if (parts[0] === "api") {
    if (parts.length === 1) return { kind: "discovery-root", core: true };
    group = "";
    version = parts[1]!;
    rest = parts.slice(2);
  } else if (parts[0] === "apis") {
    if (parts.length === 1) return { kind: "discovery-root", core: false };
    if (parts.length === 2) return { kind: "discovery-group", group: parts[1]! };
    group = parts[1]!;
    version = parts[2]!;
    rest = parts.slice(3);
  } else {
    return { kind: "plain", path: pathname };
  }
  if (rest.length === 0) return { kind: "discovery-version", group, version };
  // namespaces/{ns}/{plural}/... unless it is the Namespace object itself or one of its subresources.
  if (rest[0] === "namespaces" && group === "" && rest.length >= 3 && !(rest.length === 3 && NAMESPACE_SUBRESOURCES.has(rest[2]!))) {
    return withObject(group, version, rest[1]!, rest.slice(2));
  }
  if (rest[0] === "namespaces" && group !== "" && rest.length >= 3) {
    return withObject(group, version, rest[1]!, rest.slice(2));
  }
  return withObject(group, version, undefined, rest);
}

function withObject(group: string, version: string, namespace: string | undefined, rest: string[]): Route {
  if (rest.length === 0 || rest.length > 3) return { kind: "unknown" };
  const r: Route = { kind: "resource", group, version, plural: rest[0]! };
  if (namespace !== undefined) r.namespace = namespace;
  if (rest[1] !== undefined) r.name = rest[1];
  if (rest[2] !== undefined) r.subresource = rest[2];
  return r;
}
