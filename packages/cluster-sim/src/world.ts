// The simulator's view of the cluster: one informer per kind it reads (list+watch, never polling),
// a pods-by-node index, and change fan-out to the actors.
import type { KubeConfig, KubernetesObject } from "@kubernetes/client-node";
import { Informer, Resources, type ResourceType } from "@lockstep/kube";
import type { KubeObject } from "./types.js";

export type Kind = "node" | "pool" | "mc" | "cv" | "co" | "pod";

const RES: Record<Kind, ResourceType> = {
  node: Resources.node,
  pool: Resources.machineConfigPool,
  mc: Resources.machineConfig,
  cv: Resources.clusterVersion,
  co: Resources.clusterOperator,
  pod: Resources.pod,
};

/**
 * client-node's list deserializer turns metav1.Time strings into Date objects (watch events stay
 * JSON). Convert them back to the API's RFC 3339 form so every object looks as the server sent it.
 */
export function normalizeTimes<T>(v: T): T {
  if (v instanceof Date) return v.toISOString().replace(/\.\d{3}Z$/, "Z") as unknown as T;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) v[i] = normalizeTimes(v[i]);
    return v;
  }
  if (v && typeof v === "object") {
    const o = v as Record<string, unknown>;
    for (const k of Object.keys(o)) {
      const x = o[k];
      if (x && typeof x === "object") o[k] = normalizeTimes(x);
    }
  }
  return v;
}

export type ChangeListener = (kind: Kind, obj: KubeObject, old: KubeObject | undefined, deleted: boolean) => void;

export class World {
  private readonly informers = new Map<Kind, Informer<KubernetesObject>>();
  private readonly listeners: ChangeListener[] = [];
  /** node name → pod key → pod */
  readonly podsByNode = new Map<string, Map<string, KubeObject>>();

  constructor(kc: KubeConfig, kinds: Kind[] = ["node", "pool", "mc", "cv", "co", "pod"], podLabelSelector?: string) {
    for (const k of kinds) {
      const inf = new Informer<KubernetesObject>(
        kc,
        RES[k],
        {
          add: (o) => this.emit(k, o as KubeObject, undefined, false),
          update: (o, old) => this.emit(k, o as KubeObject, old as KubeObject, false),
          delete: (o) => this.emit(k, o as KubeObject, undefined, true),
        },
        { minBackoffMs: 100, maxBackoffMs: 2000, missingRetryMs: 1000, labelSelector: k === "pod" ? podLabelSelector : undefined },
      );
      this.informers.set(k, inf);
    }
  }

  onChange(l: ChangeListener): void {
    this.listeners.push(l);
  }

  private emit(kind: Kind, obj: KubeObject, old: KubeObject | undefined, deleted: boolean): void {
    normalizeTimes(obj);
    if (kind === "pod") this.indexPod(obj, old, deleted);
    for (const l of this.listeners) {
      try {
        l(kind, obj, old, deleted);
      } catch {
        // A listener's bug must not stop the informer's delivery to the others.
      }
    }
  }

  private indexPod(pod: KubeObject, old: KubeObject | undefined, deleted: boolean): void {
    const key = `${pod.metadata.namespace}/${pod.metadata.name}`;
    const oldNode = old?.spec?.nodeName as string | undefined;
    if (oldNode && oldNode !== pod.spec?.nodeName) this.podsByNode.get(oldNode)?.delete(key);
    const n = pod.spec?.nodeName as string | undefined;
    if (!n) return;
    if (deleted) {
      this.podsByNode.get(n)?.delete(key);
      return;
    }
    let m = this.podsByNode.get(n);
    if (!m) this.podsByNode.set(n, (m = new Map()));
    m.set(key, pod);
  }

  start(signal?: AbortSignal): void {
    for (const i of this.informers.values()) i.start(signal);
  }

  stop(): void {
    for (const i of this.informers.values()) i.stop();
  }

  get synced(): boolean {
    return [...this.informers.values()].every((i) => i.synced);
  }

  async whenSynced(timeoutMs = 60_000): Promise<void> {
    const until = Date.now() + timeoutMs;
    while (!this.synced) {
      if (Date.now() > until) throw new Error("cluster-sim: informers did not sync (is the API server reachable and are the OpenShift CRDs installed?)");
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  list(kind: Kind): KubeObject[] {
    return (this.informers.get(kind)?.list() ?? []) as KubeObject[];
  }

  get(kind: Kind, name: string, namespace = ""): KubeObject | undefined {
    return this.informers.get(kind)?.get(name, namespace) as KubeObject | undefined;
  }
}
