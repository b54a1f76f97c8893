// The simulator's only door to the API server: plain JSON over the lite client's one keep-alive agent
// (no client-node model (de)serialisation: a tenth of the simulator's CPU at 10,000 nodes), bounded
// concurrency, counters. Objects go out as given and come back as the server sent them.
import { ApiDiscovery, collectionPath, KubeApiError, KubeHttp, Resources, statusCode, type KubeConfigLike, type ResourceType } from "@lockstep/kube";
import { errText } from "./errors.js";
import type { KubeObject } from "./types.js";

// The kinds the simulator writes: the shared resource table, plus Namespace (Lockstep never writes one).
const NAMESPACE: ResourceType = { apiVersion: "v1", kind: "Namespace", plural: "namespaces", namespaced: false };
const KINDS = new Map<string, ResourceType>([NAMESPACE, ...Object.values(Resources)].map((r) => [r.kind, r]));

/** Built-in kinds: the API server keeps a status given on create (custom resources drop it). */
const BUILT_IN = new Set(["Namespace", "Node", "Pod", "ConfigMap", "PodDisruptionBudget"]);
/** Built-in kinds whose patch the simulator sends; ConfigMaps have no status subresource (patched whole). */
const PATCHABLE = new Set(["Node", "Pod", "ConfigMap"]);

/** Deleting what is already gone is the outcome a delete wants. */
const GONE = [404] as const;

/** `refused`: the API server said no for another reason than a PDB (an admission webhook's 400/403), with its message. */
export type EvictResult = "evicted" | "blocked" | "gone" | { refused: string };

export interface WriterStats {
  writes: number;
  conflicts: number;
  errors: number;
  /** The first few errors as "verb: status message", so a failed run says what went wrong. */
  errorSamples: string[];
  byVerb: Record<string, number>;
}

export class KubeWriter {
  private readonly http: KubeHttp;
  /** Which policy version the server serves (policy/v1, or policy/v1beta1 before Kubernetes 1.21/1.22). */
  private readonly discovery: ApiDiscovery;
  private inFlight = 0;
  private readonly waiting: Array<() => void> = [];
  readonly stats: WriterStats = { writes: 0, conflicts: 0, errors: 0, errorSamples: [], byVerb: {} };

  /** `kc`: client-node's KubeConfig or any KubeConfigLike. */
  constructor(kc: KubeConfigLike, private readonly concurrency = 64) {
    // One keep-alive agent with a socket per allowed request in flight.
    this.http = new KubeHttp(kc, concurrency);
    this.discovery = new ApiDiscovery(this.http);
  }

  /**
   * Nothing to release: KubeHttp keeps its agent private. Its idle keep-alive sockets do not hold
   * the process open (Node unrefs them) and the server closes them after its keep-alive timeout.
   */
  close(): void {}

  /** `expected`: answers that are an outcome the caller handles (a drain told "blocked by a PDB"), not errors. */
  private async run<T>(verb: string, fn: () => Promise<T>, expected: readonly number[] = []): Promise<T> {
    if (this.inFlight >= this.concurrency) await new Promise<void>((r) => this.waiting.push(r));
    this.inFlight++;
    this.stats.writes++;
    this.stats.byVerb[verb] = (this.stats.byVerb[verb] ?? 0) + 1;
    try {
      return await fn();
    } catch (err) {
      const code = statusCode(err);
      if (code === 409) this.stats.conflicts++;
      else if (code === undefined || !expected.includes(code)) {
        this.stats.errors++;
        if (this.stats.errorSamples.length < 5) this.stats.errorSamples.push(`${verb}: ${code ?? "no status"} ${(err as Error).message?.slice(0, 200) ?? ""}`);
      }
      throw err;
    } finally {
      this.inFlight--;
      this.waiting.shift()?.();
    }
  }

  /** A request whose answer body the caller does not use: not parsed. Rejects with KubeApiError on non-2xx. */
  private async send(method: string, path: string, query?: Record<string, number | undefined>, body?: unknown): Promise<void> {
    const { status, text } = await this.http.requestText(method, path, { query, body });
    if (status < 200 || status >= 300) throw new KubeApiError(status, text, `${method} ${path}`);
  }

  private info(kind: string): ResourceType {
    const k = KINDS.get(kind);
    if (!k) throw new Error(`cluster-sim cannot write kind ${kind}`);
    return k;
  }

  /** The kind's resource in the version the server serves (PDBs: discovery). */
  private async served(kind: string): Promise<ResourceType> {
    const k = this.info(kind);
    return k.olderVersions ? this.discovery.served(k) : k;
  }

  /**
   * Creates an object; a status given for a kind whose status the server drops on create is written after.
   * A kind with older versions goes out in the one the server serves (same fields: policy/v1beta1 PDBs).
   */
  async create(obj: KubeObject): Promise<KubeObject> {
    const k = await this.served(obj.kind);
    if (obj.apiVersion !== k.apiVersion) obj = { ...obj, apiVersion: k.apiVersion };
    const ns = obj.metadata.namespace ?? "";
    const created = await this.run(`create ${k.plural}`, () => this.http.request<KubeObject>("POST", collectionPath(k, ns), { body: obj }));
    if (obj.status !== undefined && !BUILT_IN.has(obj.kind) && JSON.stringify(created.status) !== JSON.stringify(obj.status)) {
      return this.mergePatch(obj.kind, obj.metadata.name, { status: obj.status }, { namespace: ns, status: true });
    }
    return created;
  }

  /**
   * JSON merge patch. Put `metadata.resourceVersion` in the body for an optimistic-concurrency
   * precondition (409 when stale).
   */
  async mergePatch(kind: string, name: string, body: unknown, o: { namespace?: string; status?: boolean } = {}): Promise<KubeObject> {
    const k = this.info(kind);
    const ns = o.namespace ?? "";
    return this.run(`patch ${k.plural}${o.status ? "/status" : ""}`, async () => {
      if (BUILT_IN.has(kind) && !PATCHABLE.has(kind)) throw new Error(`patch of ${kind} not supported`);
      const sub = o.status && kind !== "ConfigMap" ? "/status" : "";
      return this.http.request<KubeObject>("PATCH", `${collectionPath(k, ns)}/${encodeURIComponent(name)}${sub}`, { body, contentType: "application/merge-patch+json" });
    });
  }

  /** Strategic merge patch of a node's status (what a kubelet sends: conditions merge by type). */
  async patchNodeStatusStrategic(name: string, body: unknown): Promise<KubeObject> {
    return this.run("patch nodes/status", () =>
      this.http.request<KubeObject>("PATCH", `${collectionPath(Resources.node)}/${encodeURIComponent(name)}/status`, { body, contentType: "application/strategic-merge-patch+json" }),
    );
  }

  async evict(namespace: string, name: string): Promise<EvictResult> {
    try {
      const path = `${collectionPath(Resources.pod, namespace)}/${encodeURIComponent(name)}/eviction`;
      const apiVersion = await this.discovery.evictionApiVersion("policy/v1");
      await this.run("create pods/eviction", () => this.send("POST", path, undefined, { apiVersion, kind: "Eviction", metadata: { name, namespace } }), [429, 404, 400, 403]);
      return "evicted";
    } catch (err) {
      const code = statusCode(err);
      if (code === 429) return "blocked";
      if (code === 404) return "gone";
      if (code === 400 || code === 403) return { refused: errText(err) };
      throw err;
    }
  }

  async deletePod(namespace: string, name: string, gracePeriodSeconds?: number): Promise<void> {
    try {
      const path = `${collectionPath(Resources.pod, namespace)}/${encodeURIComponent(name)}`;
      await this.run("delete pods", () => this.send("DELETE", path, { gracePeriodSeconds }), GONE);
    } catch (err) {
      if (statusCode(err) !== 404) throw err;
    }
  }

  async deletePdb(namespace: string, name: string): Promise<void> {
    try {
      const path = `${collectionPath(await this.served("PodDisruptionBudget"), namespace)}/${encodeURIComponent(name)}`;
      await this.run("delete poddisruptionbudgets", () => this.send("DELETE", path), GONE);
    } catch (err) {
      if (statusCode(err) !== 404) throw err;
    }
  }
}

/** Creates objects in order of kind groups, each group with bounded concurrency; existing objects are kept. */
export async function applyObjects(w: KubeWriter, objects: KubeObject[], onProgress?: (done: number) => void): Promise<{ created: number; existing: number }> {
  let created = 0;
  let existing = 0;
  // Kinds must exist before their dependants (namespaces before pods, PDBs before pods).
  const order = ["Namespace", "Infrastructure", "ClusterVersion", "ClusterOperator", "ConfigMap", "MachineConfig", "MachineConfigPool", "MachineSet", "Node", "PodDisruptionBudget", "Pod"];
  const groups = order.map((k) => objects.filter((o) => o.kind === k));
  for (const g of groups) {
    await Promise.all(
      g.map(async (o) => {
        try {
          await w.create(o);
          created++;
        } catch (err) {
          if (statusCode(err) === 409) existing++;
          else throw new Error(`creating ${o.kind} ${o.metadata.name}: ${(err as Error).message}`);
        }
        onProgress?.(created + existing);
      }),
    );
  }
  return { created, existing };
}
