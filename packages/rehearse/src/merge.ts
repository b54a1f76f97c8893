// The two patch forms the simulator's actors write, applied in memory: JSON merge patch (RFC 7386)
// and the strategic merge of node status conditions (merged by type).
type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

export function mergePatch<T>(target: T, patch: unknown): T {
  if (!isObj(patch)) return structuredClone(patch) as T;
  const out: Obj = isObj(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = isObj(v) ? mergePatch(out[k], v) : structuredClone(v);
  }
  return out as T;
}

/** Strategic merge of a node status patch: `conditions` merge by `type`, the rest as a merge patch. */
export function mergeNodeStatus(status: unknown, patch: Obj): Obj {
  const { conditions, ...rest } = patch as { conditions?: Array<{ type: string }> } & Obj;
  const out = mergePatch((status ?? {}) as Obj, rest);
  if (conditions) {
    const list = [...((out.conditions as Array<{ type: string }> | undefined) ?? [])];
    for (const c of conditions) {
      const i = list.findIndex((x) => x.type === c.type);
      if (i >= 0) list[i] = { ...list[i], ...c };
      else list.push(c);
    }
    out.conditions = list;
  }
  return out;
}
