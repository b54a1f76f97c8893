// The simulator's only door to the API server: @kubernetes/client-node typed clients, one shared
// keep-alive agent (client-node 1.4 builds a fresh agent per request), bounded concurrency, counters.
import { Agent as HttpAgent } from "node:http";
import { CoreV1Api, CustomObjectsApi, PolicyV1Api, type ConfigurationOptions, type KubeConfig } from "@kubernetes/client-node";
import { statusCode } from "@lockstep/kube";
import type { KubeObject } from "./types.js";

interface RequestContextLike {
  setAgent(a: unknown): void;
  setHeaderParam(k: string, v: string): void;
  setBody(b: string): void;
}

/** client-node's middleware contract: `pre`/`post` return its minimal Observable (toPromise/pipe). */
class Obs<T> {
  constructor(private readonly p: Promise<T>) {}
  toPromise(): Promise<T> {
    return this.p;
  }
  pipe<U>(cb: (v: T) => U | Promise<U>): Obs<U> {
    return new Obs(this.p.then(cb));
  }
}
const obs = <T>(v: T) => new Obs(Promise.resolve(v));

type Mw = { pre(ctx: RequestContextLike): Obs<RequestContextLike>; post<T>(r: T): Obs<T> };

interface KindInfo {
  group: string;
  version: string;
  plural: string;
  namespaced: boolean;
  core?: boolean;
}

const KINDS: Record<string, KindInfo> = {
  Namespace: { group: "", version: "v1", plural: "namespaces", namespaced: false, core: true },
  Node: { group: "", version: "v1", plural: "nodes", namespaced: false, core: true },
  Pod: { group: "", version: "v1", plural: "pods", namespaced: true, core: true },
  ConfigMap: { group: "", version: "v1", plural: "configmaps", namespaced: true, core: true },
  PodDisruptionBudget: { group: "policy", version: "v1", plural: "poddisruptionbudgets", namespaced: true, core: true },
  ClusterVersion: { group: "config.openshift.io", version: "v1", plural: "clusterversions", namespaced: false },
  ClusterOperator: { group: "config.openshift.io", version: "v1", plural: "clusteroperators", namespaced: false },
  Infrastructure: { group: "config.openshift.io", version: "v1", plural: "infrastructures", namespaced: false },
  MachineConfig: { group: "machineconfiguration.openshift.io", version: "v1", plural: "machineconfigs", namespaced: false },
  MachineConfigPool: { group: "machineconfiguration.openshift.io", version: "v1", plural: "machineconfigpools", namespaced: false },
  MachineSet: { group: "machine.openshift.io", version: "v1beta1", plural: "machinesets", namespaced: true },
};

/** Deleting what is already gone is the outcome a delete wants. */
const GONE = [404] as const;

export type EvictResult = "evicted" | "blocked" | "gone";

export interface WriterStats {
  writes: number;
  conflicts: number;
  errors: number;
  /** The first few errors as "verb: status message", so a failed run says what went wrong. */
  errorSamples: string[];
  byVerb: Record<string, number>;
}

export class KubeWriter {
  private readonly core: CoreV1Api;
  private readonly policy: PolicyV1Api;
  private readonly custom: CustomObjectsApi;
  private readonly base: Mw[] = [];
  private inFlight = 0;
  private readonly waiting: Array<() => void> = [];
  readonly stats: WriterStats = { writes: 0, conflicts: 0, errors: 0, errorSamples: [], byVerb: {} };
  private agent: HttpAgent | undefined;

  constructor(kc: KubeConfig, private readonly concurrency = 64) {
    this.core = kc.makeApiClient(CoreV1Api);
    this.policy = kc.makeApiClient(PolicyV1Api);
    this.custom = kc.makeApiClient(CustomObjectsApi);
    const server = kc.getCurrentCluster()?.server ?? "";
    if (server.startsWith("http://")) {
      const agent = new HttpAgent({ keepAlive: true, maxSockets: concurrency });
      this.agent = agent;
      this.base.push({ pre: (ctx) => (ctx.setAgent(agent), obs(ctx)), post: (r) => obs(r) });
    }
  }

  close(): void {
    this.agent?.destroy();
  }

  /**
   * `rawBody`: send this object as is. client-node's typed serializer rewrites metav1.Time strings as
   * millisecond ISO dates (which the API server would never return) and drops fields it does not know.
   */
  private opts(contentType?: string, rawBody?: unknown): ConfigurationOptions {
    const mws: Mw[] = [...this.base];
    if (contentType) mws.push({ pre: (ctx) => (ctx.setHeaderParam("Content-Type", contentType), obs(ctx)), post: (r) => obs(r) });
    if (rawBody !== undefined) mws.push({ pre: (ctx) => (ctx.setBody(JSON.stringify(rawBody)), obs(ctx)), post: (r) => obs(r) });
    return { middleware: mws as never, middlewareMergeStrategy: "append" } as ConfigurationOptions;
  }

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

  private info(kind: string): KindInfo {
    const k = KINDS[kind];
    if (!k) throw new Error(`cluster-sim cannot write kind ${kind}`);
    return k;
  }

  /** Creates an object; a status given for a kind whose status the server drops on create is written after. */
  async create(obj: KubeObject): Promise<KubeObject> {
    const k = this.info(obj.kind);
    const ns = obj.metadata.namespace ?? "";
    const o = this.opts(undefined, obj);
    const created = (await this.run(`create ${k.plural}`, async () => {
      if (k.core) {
        switch (obj.kind) {
          case "Namespace":
            return this.core.createNamespace({ body: obj as never }, o);
          case "Node":
            return this.core.createNode({ body: obj as never }, o);
          case "Pod":
            return this.core.createNamespacedPod({ namespace: ns, body: obj as never }, o);
          case "ConfigMap":
            return this.core.createNamespacedConfigMap({ namespace: ns, body: obj as never }, o);
          case "PodDisruptionBudget":
            return this.policy.createNamespacedPodDisruptionBudget({ namespace: ns, body: obj as never }, o);
        }
      }
      return k.namespaced
        ? this.custom.createNamespacedCustomObject({ group: k.group, version: k.version, namespace: ns, plural: k.plural, body: obj }, o)
        : this.custom.createClusterCustomObject({ group: k.group, version: k.version, plural: k.plural, body: obj }, o);
    })) as KubeObject;
    if (obj.status !== undefined && !k.core && JSON.stringify(created.status) !== JSON.stringify(obj.status)) {
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
    const opts = this.opts("application/merge-patch+json");
    return (await this.run(`patch ${k.plural}${o.status ? "/status" : ""}`, async () => {
      if (k.core) {
        if (kind === "Node") return o.status ? this.core.patchNodeStatus({ name, body }, opts) : this.core.patchNode({ name, body }, opts);
        if (kind === "Pod") return o.status ? this.core.patchNamespacedPodStatus({ name, namespace: ns, body }, opts) : this.core.patchNamespacedPod({ name, namespace: ns, body }, opts);
        if (kind === "ConfigMap") return this.core.patchNamespacedConfigMap({ name, namespace: ns, body }, opts);
        throw new Error(`patch of ${kind} not supported`);
      }
      const base = { group: k.group, version: k.version, plural: k.plural, name, body };
      if (k.namespaced)
        return o.status ? this.custom.patchNamespacedCustomObjectStatus({ ...base, namespace: ns }, opts) : this.custom.patchNamespacedCustomObject({ ...base, namespace: ns }, opts);
      return o.status ? this.custom.patchClusterCustomObjectStatus(base, opts) : this.custom.patchClusterCustomObject(base, opts);
    })) as KubeObject;
  }

  /** Strategic merge patch of a node's status (what a kubelet sends: conditions merge by type). */
  async patchNodeStatusStrategic(name: string, body: unknown): Promise<KubeObject> {
    const opts = this.opts("application/strategic-merge-patch+json");
    return (await this.run("patch nodes/status", () => this.core.patchNodeStatus({ name, body }, opts))) as unknown as KubeObject;
  }

  async evict(namespace: string, name: string): Promise<EvictResult> {
    try {
      await this.run("create pods/eviction", () =>
        this.core.createNamespacedPodEviction({ name, namespace, body: { apiVersion: "policy/v1", kind: "Eviction", metadata: { name, namespace } } }, this.opts()),
        [429, 404],
      );
      return "evicted";
    } catch (err) {
      const code = statusCode(err);
      if (code === 429) return "blocked";
      if (code === 404) return "gone";
      throw err;
    }
  }

  async deletePod(namespace: string, name: string, gracePeriodSeconds?: number): Promise<void> {
    try {
      await this.run("delete pods", () => this.core.deleteNamespacedPod({ name, namespace, gracePeriodSeconds }, this.opts()), GONE);
    } catch (err) {
      if (statusCode(err) !== 404) throw err;
    }
  }

  async deletePdb(namespace: string, name: string): Promise<void> {
    try {
      await this.run("delete poddisruptionbudgets", () => this.policy.deleteNamespacedPodDisruptionBudget({ name, namespace }, this.opts()), GONE);
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
