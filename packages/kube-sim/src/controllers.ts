// Optional controllers that a bare API server does not run (kube-api.md §9): the namespace
// controller (empties and removes terminating namespaces) and the ownerReference garbage collector.
import type { Store } from "./store.js";
import type { KubeObject, ResourceType } from "./types.js";

export function installNamespaceController(store: Store): void {
  const nsType = store.registry.get("", "namespaces")!;
  store.onCommit((t, ev) => {
    if (t !== nsType || ev.type === "DELETED" || !ev.entry.obj.metadata?.deletionTimestamp) return;
    const ns = ev.entry.obj.metadata.name!;
    setImmediate(() => {
      for (const rt of store.registry.all()) {
        if (!rt.namespaced) continue;
        for (const e of store.entries(rt, ns)) store.forceRemove(rt, ns, e.obj.metadata!.name!);
      }
      store.forceRemove(nsType, undefined, ns);
    });
  });
}

/** Background cascading deletion by ownerReferences.uid (orphaning is not modelled). */
export function installGarbageCollector(store: Store): void {
  const dependents = new Map<string, Map<string, { t: ResourceType; ns?: string; name: string }>>();
  const refKey = (t: ResourceType, o: KubeObject) => `${t.group}/${t.plural}/${o.metadata?.namespace ?? ""}/${o.metadata?.name}`;
  store.onCommit((t, ev) => {
    const o = ev.entry.obj;
    const me = refKey(t, o);
    for (const r of ev.prev?.obj.metadata?.ownerReferences ?? []) dependents.get(r.uid)?.delete(me);
    if (ev.type !== "DELETED") {
      for (const r of o.metadata?.ownerReferences ?? []) {
        let m = dependents.get(r.uid);
        if (!m) dependents.set(r.uid, (m = new Map()));
        m.set(me, { t, ns: o.metadata?.namespace, name: o.metadata!.name! });
      }
      return;
    }
    for (const r of o.metadata?.ownerReferences ?? []) dependents.get(r.uid)?.delete(me);
    const uid = o.metadata?.uid;
    const deps = uid ? dependents.get(uid) : undefined;
    if (!deps || deps.size === 0) return;
    dependents.delete(uid!);
    setImmediate(() => {
      for (const d of deps.values()) {
        const cur = store.getEntry(d.t, d.ns, d.name);
        if (!cur || !(cur.obj.metadata?.ownerReferences ?? []).some((r) => r.uid === uid)) continue;
        try {
          store.delete(d.t, d.ns, d.name, {});
        } catch {
          // Gone or type removed meanwhile: nothing to collect.
        }
      }
    });
  });
}
