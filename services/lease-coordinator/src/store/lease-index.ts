// This replica's view of every Lease it coordinates: the state plane's snapshots, overlaid with what
// this replica itself wrote or re-read from the API (the state plane lags its own writes), plus the
// observed-time log that expiry is judged by. No I/O.
import type { LeaseState } from "@lockstep/contracts";
import { decodeLease, leaseFingerprint, leaseKey, type LeaseRecord, type Observation, type PolicyConfig } from "@lockstep/lease-policy";

export interface IndexedLease {
  key: string;
  state: LeaseState;
  rec: LeaseRecord;
}

export interface IndexChange {
  type: "ADDED" | "MODIFIED" | "DELETED";
  key: string;
  current?: IndexedLease;
  previous?: IndexedLease;
}

type Overlay = { state: LeaseState; atMs: number } | { state: null; atMs: number; knownRv: string };

/** How long a local overlay may shadow the state plane when resourceVersions cannot be compared. */
const OVERLAY_TTL_MS = 5_000;

/**
 * Whether resourceVersion `a` is newer than `b`. Kubernetes calls them opaque, but the API server
 * (etcd revisions) and kube-sim hand out increasing integers; anything else is "unknown".
 */
export function newerRv(a: string, b: string): boolean | undefined {
  if (!/^\d+$/.test(a) || !/^\d+$/.test(b)) return undefined;
  return BigInt(a) > BigInt(b);
}

export class LeaseIndex {
  private readonly plane = new Map<string, LeaseState>();
  private readonly local = new Map<string, Overlay>();
  private readonly effective = new Map<string, IndexedLease>();
  private readonly byNode = new Map<string, Set<string>>();
  private readonly byScope = new Map<string, Set<string>>();
  private readonly holding = new Set<string>();
  private readonly listeners = new Set<(c: IndexChange) => void>();
  /** client-go's observedTime per lease: when this replica first saw the current record. */
  readonly observations = new Map<string, Observation>();

  constructor(
    private readonly policy: PolicyConfig,
    private readonly clock: () => number = Date.now,
  ) {}

  onChange(listener: (c: IndexChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** A state-plane put (state given) or delete. */
  fromPlane(namespace: string, name: string, state: LeaseState | undefined): void {
    const key = `${namespace}/${name}`;
    if (state) this.plane.set(key, state);
    else this.plane.delete(key);
    const o = this.local.get(key);
    if (o !== undefined) {
      if (state === undefined) {
        if (o.state === null) this.local.delete(key);
      } else {
        const localRv = o.state === null ? o.knownRv : o.state.resourceVersion;
        const newer = newerRv(state.resourceVersion, localRv);
        if (newer === true || (o.state !== null && state.resourceVersion === localRv)) this.local.delete(key);
      }
    }
    this.refresh(key);
  }

  /** What the API returned for a write or a read by this replica. */
  fromApi(state: LeaseState): void {
    const key = `${state.namespace}/${state.name}`;
    const current = this.effective.get(key);
    if (current && newerRv(current.state.resourceVersion, state.resourceVersion) === true) return;
    this.local.set(key, { state, atMs: this.clock() });
    this.refresh(key);
  }

  /** A read by this replica found no such Lease. */
  absentInApi(namespace: string, name: string): void {
    const key = `${namespace}/${name}`;
    this.local.set(key, { state: null, atMs: this.clock(), knownRv: this.effective.get(key)?.state.resourceVersion ?? "0" });
    this.refresh(key);
  }

  /** Node and foreign leases about `node` (not budget slots). */
  leasesOfNode(node: string): IndexedLease[] {
    const out: IndexedLease[] = [];
    for (const k of this.byNode.get(node) ?? []) {
      const e = this.effective.get(k);
      if (e && e.rec.kind !== "slot") out.push(e);
    }
    return out;
  }

  get(namespace: string, name: string): IndexedLease | undefined {
    this.expireOverlay(`${namespace}/${name}`);
    return this.effective.get(`${namespace}/${name}`);
  }

  all(): IndexedLease[] {
    for (const key of [...this.local.keys()]) this.expireOverlay(key);
    return [...this.effective.values()];
  }

  get size(): number {
    return this.effective.size;
  }

  /**
   * The leases one decision about `node` can depend on, decoded: the node's own and foreign leases,
   * its budget slots, every slot of the scopes it needs, and leases with a holder on other members
   * of those scopes (they count as disrupted). Everything else cannot change the outcome.
   */
  recordsFor(node: string, scopeKeys: readonly string[], scopeMembers: readonly ReadonlySet<string>[]): LeaseRecord[] {
    const keys = new Set<string>(this.byNode.get(node) ?? []);
    for (const scope of scopeKeys) for (const k of this.byScope.get(scope) ?? []) keys.add(k);
    if (scopeMembers.length > 0) {
      const total = scopeMembers.reduce((n, m) => n + m.size, 0);
      if (total < this.holding.size) {
        // Small scopes in a cluster with many holds: look their members up instead.
        for (const members of scopeMembers) {
          for (const m of members) for (const k of this.byNode.get(m) ?? []) if (this.holding.has(k) && this.effective.get(k)?.rec.kind !== "slot") keys.add(k);
        }
      } else {
        for (const k of this.holding) {
          const e = this.effective.get(k);
          if (e && e.rec.kind !== "slot" && scopeMembers.some((m) => m.has(e.rec.node))) keys.add(k);
        }
      }
    }
    const out: LeaseRecord[] = [];
    for (const k of keys) {
      this.expireOverlay(k);
      const e = this.effective.get(k);
      if (e) out.push(e.rec);
    }
    return out;
  }

  private expireOverlay(key: string): void {
    const o = this.local.get(key);
    if (o === undefined || this.clock() - o.atMs < OVERLAY_TTL_MS) return;
    // Past its TTL an overlay only stays while it is provably newer than the state plane.
    const p = this.plane.get(key);
    if (o.state !== null && p !== undefined && newerRv(o.state.resourceVersion, p.resourceVersion) === true) return;
    this.local.delete(key);
    this.refresh(key);
  }

  private resolve(key: string): LeaseState | undefined {
    const o = this.local.get(key);
    const p = this.plane.get(key);
    if (o === undefined) return p;
    if (o.state === null) return undefined;
    if (p === undefined) return o.state;
    return newerRv(p.resourceVersion, o.state.resourceVersion) === true ? p : o.state;
  }

  private refresh(key: string): void {
    const state = this.resolve(key);
    const previous = this.effective.get(key);
    if (state === undefined) {
      if (previous === undefined) return;
      this.unindex(previous);
      this.effective.delete(key);
      this.observations.delete(key);
      this.emit({ type: "DELETED", key, previous });
      return;
    }
    // The same version again (typically the state plane echoing this replica's own write, which
    // fromApi already decoded): a resourceVersion names one version of the object, nothing changed.
    if (previous && previous.state.resourceVersion === state.resourceVersion && state.resourceVersion !== "") return;
    const rec = decodeLease(state, this.policy);
    if (rec === undefined) return; // not a node lease of a namespace we coordinate
    const current: IndexedLease = { key, state, rec };
    if (previous) this.unindex(previous);
    this.effective.set(key, current);
    this.indexRec(current);
    const fingerprint = leaseFingerprint(rec);
    const seen = this.observations.get(key);
    if (seen === undefined || seen.fingerprint !== fingerprint) this.observations.set(key, { fingerprint, firstSeenMs: this.clock() });
    if (previous && leaseFingerprint(previous.rec) === fingerprint && previous.state.resourceVersion === state.resourceVersion) return;
    this.emit({ type: previous ? "MODIFIED" : "ADDED", key, current, previous });
  }

  private indexRec(e: IndexedLease): void {
    add(this.byNode, e.rec.node, e.key);
    if (e.rec.kind === "slot") add(this.byScope, e.rec.scope, e.key);
    if (e.rec.holder !== "") this.holding.add(e.key);
  }

  private unindex(e: IndexedLease): void {
    remove(this.byNode, e.rec.node, e.key);
    if (e.rec.kind === "slot") remove(this.byScope, e.rec.scope, e.key);
    this.holding.delete(e.key);
  }

  private emit(c: IndexChange): void {
    for (const l of this.listeners) {
      try {
        l(c);
      } catch {
        // a listener's failure must not break the index
      }
    }
  }
}

function add(m: Map<string, Set<string>>, k: string, v: string): void {
  let s = m.get(k);
  if (!s) m.set(k, (s = new Set()));
  s.add(v);
}

function remove(m: Map<string, Set<string>>, k: string, v: string): void {
  const s = m.get(k);
  if (!s) return;
  s.delete(v);
  if (s.size === 0) m.delete(k);
}

export { leaseKey };
