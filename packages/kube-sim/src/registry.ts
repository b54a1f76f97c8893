// The live type table: built-ins plus CRD-defined types, looked up by URL parts or by apiVersion+kind.
import { splitApiVersion, typeKey, type ResourceType } from "./types.js";

export class Registry {
  private readonly byKey = new Map<string, ResourceType>();
  private readonly byGvk = new Map<string, ResourceType>();
  /** Bumped on every change so discovery documents can be cached. */
  revision = 0;

  add(t: ResourceType): void {
    const old = this.byKey.get(typeKey(t.group, t.plural));
    if (old) this.removeIndexes(old);
    this.byKey.set(typeKey(t.group, t.plural), t);
    for (const v of t.versions) this.byGvk.set(`${t.group}/${v}/${t.kind}`, t);
    this.revision++;
  }

  remove(group: string, plural: string): ResourceType | undefined {
    const t = this.byKey.get(typeKey(group, plural));
    if (!t) return undefined;
    this.removeIndexes(t);
    this.byKey.delete(typeKey(group, plural));
    this.revision++;
    return t;
  }

  private removeIndexes(t: ResourceType): void {
    for (const v of t.versions) this.byGvk.delete(`${t.group}/${v}/${t.kind}`);
  }

  get(group: string, plural: string): ResourceType | undefined {
    return this.byKey.get(typeKey(group, plural));
  }

  /** The type served at /api(s)/{group}/{version}/{plural}, if that version is served. */
  resolve(group: string, version: string, plural: string): ResourceType | undefined {
    const t = this.byKey.get(typeKey(group, plural));
    return t && t.versions.includes(version) ? t : undefined;
  }

  forObject(apiVersion: string, kind: string): ResourceType | undefined {
    const { group, version } = splitApiVersion(apiVersion);
    return this.byGvk.get(`${group}/${version}/${kind}`);
  }

  all(): ResourceType[] {
    return [...this.byKey.values()];
  }

  /** Groups in a stable order: built-in groups first in registration order. */
  groups(): Array<{ name: string; versions: string[] }> {
    const out = new Map<string, string[]>();
    for (const t of this.byKey.values()) {
      const vs = out.get(t.group) ?? [];
      for (const v of t.versions) if (!vs.includes(v)) vs.push(v);
      out.set(t.group, vs);
    }
    return [...out.entries()].map(([name, versions]) => ({ name, versions }));
  }
}
