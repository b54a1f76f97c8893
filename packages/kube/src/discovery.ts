// Which version of a kind the API server serves, as client-go users ask: discovery (GET /apis/<group>,
// GET /api/v1), asked once per server and group and kept. Lockstep writes for current Kubernetes and
// falls back to an older version only where an older server lacks the current one (the 1.20 oracle
// serves PodDisruptionBudget and Eviction only as policy/v1beta1).
import type { KubeConfigLike } from "./access.js";
import { statusCode } from "./errors.js";
import { KubeHttp } from "./http.js";
import { groupOf, versionOf, type ResourceType } from "./resources.js";

/** An APIGroup discovery document (the fields used here). */
export interface ApiGroupDoc {
  versions?: Array<{ groupVersion?: string; version?: string }>;
  preferredVersion?: { version?: string };
}

/** An APIResourceList discovery document (the fields used here). */
export interface ApiResourceListDoc {
  resources?: Array<{ name?: string; group?: string; version?: string; kind?: string }>;
}

/**
 * Pure: the resource in the first of its versions (current, then `olderVersions`) that the group
 * serves; the current one when the group serves none of them (the caller then finds it missing).
 */
export function chooseServedVersion(r: ResourceType, doc: ApiGroupDoc | undefined): ResourceType {
  const served = new Set((doc?.versions ?? []).map((v) => v.version));
  const current = versionOf(r);
  const pick = [current, ...(r.olderVersions ?? [])].find((v) => served.has(v));
  if (pick === undefined || pick === current) return r;
  const group = groupOf(r);
  return { ...r, apiVersion: group ? `${group}/${pick}` : pick };
}

/**
 * Pure: the apiVersion of the Eviction body `POST pods/<name>/eviction` takes, from the core
 * group's resource list (its `pods/eviction` entry names the group and version, as kubectl drain reads
 * it); `fallback` when the entry says nothing (e.g. a server that omits them).
 */
export function evictionApiVersion(core: ApiResourceListDoc | undefined, fallback: string): string {
  const sub = core?.resources?.find((r) => r.name === "pods/eviction");
  return sub?.group && sub.version ? `${sub.group}/${sub.version}` : fallback;
}

/** Statuses that do not change on retry: discovery is answered (404: the group is not served) or refused. */
const FINAL = new Set([401, 403, 404]);

/** Whether a discovery failure is worth retrying (no answer, 5xx, 429) rather than final. */
export function transientDiscoveryError(err: unknown): boolean {
  const code = statusCode(err);
  return code === undefined || !FINAL.has(code);
}

/**
 * Discovery of one API server, kept: each group document is asked for once (a failed ask is not
 * kept, so the next call asks again). A group the server does not serve (404) is `undefined`.
 */
export class ApiDiscovery {
  private readonly http: KubeHttp;
  private readonly docs = new Map<string, Promise<unknown>>();

  constructor(kc: KubeConfigLike | KubeHttp) {
    this.http = kc instanceof KubeHttp ? kc : new KubeHttp(kc, 2);
  }

  private ask<T>(path: string): Promise<T | undefined> {
    let p = this.docs.get(path) as Promise<T | undefined> | undefined;
    if (!p) {
      p = this.http.request<T>("GET", path).catch((err) => {
        if (statusCode(err) === 404) return undefined;
        this.docs.delete(path);
        throw err;
      });
      this.docs.set(path, p);
    }
    return p;
  }

  /** The group's APIGroup document (undefined: not served). Core ("") has none: undefined. */
  group(name: string): Promise<ApiGroupDoc | undefined> {
    return name === "" ? Promise.resolve(undefined) : this.ask<ApiGroupDoc>(`/apis/${name}`);
  }

  /** `r` in the version this server serves (see chooseServedVersion); `r` itself if it has no older versions. */
  async served(r: ResourceType): Promise<ResourceType> {
    if (!r.olderVersions?.length) return r;
    return chooseServedVersion(r, await this.group(groupOf(r)));
  }

  /** The Eviction body's apiVersion on this server; `fallback` (e.g. "policy/v1") if discovery does not say. */
  async evictionApiVersion(fallback: string): Promise<string> {
    return evictionApiVersion(await this.ask<ApiResourceListDoc>("/api/v1"), fallback);
  }
}
