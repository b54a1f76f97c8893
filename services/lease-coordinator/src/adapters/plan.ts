// Lease adapters, pure core: the node signals the watcher publishes (NodeSignalState: what a
// NodeMaintenance, a medik8s remediation CR, kured's lock, a deleting Machine or the MCO's node state
// says is happening to a node) plus the adapter leases that exist → what to acquire, renew or
// release. The I/O edge (reconciler.ts) performs it through the Coordinator, so adapted leases go
// through the same decide(): they show in `lockstep leases`, reserve budget slots, and meet the same
// conflict table (policy/conflict.ts) with its maintenance↔update warnings.
//
// An adapted lease is an observation, not a request: the disruptor is already acting. So:
// - a signal whose node another holder already holds for the SAME operation is covered (e.g. NMO's
//   own medik8s Lease, or an MCO that asks Lockstep itself): nothing is written, nothing raised;
// - otherwise the adapter acquires; when the coordinator refuses (another holder for another
//   operation, a budget with no room, earlier waiters), nothing is taken from anybody: the edge
//   raises an `AdapterConflict` warning naming the source, the node and the current holder (the
//   refusal's own warnings, e.g. UpdateInProgress, are published with it) and asks again until the
//   lease can be recorded — never silently dropped;
// - the lease is renewed while the signal lasts and released when it goes (object deleted,
//   annotation removed, kured's TTL over); the adapter never writes the other component's objects.
//
// Holders name the source: adapter:nodemaintenance/<name>, adapter:selfnoderemediation/<ns>/<name>,
// adapter:fenceagentsremediation/<ns>/<name>, adapter:kured/<node>, adapter:machine/<ns>/<name>,
// adapter:machineconfig/<node>; the disruptors' service accounts act for these prefixes in the
// webhook (admission/verdict.ts DEFAULT_ACTS_FOR). Operations: NodeMaintenance → Maintenance,
// remediation CRs → Fence, kured → Reboot, Machine deletion → Deprovision, MCO Working → Update.
// Adapted leases are ordinary Lockstep Leases, so everything that applies to a lease applies: the
// pool's maxUnavailable and DisruptionBudgets (a slot is reserved; with no room the lease waits and
// AdapterConflict says why), maxHoldSeconds (a disruptor holding longer is refused its renewal and
// warned; the lease then lapses), preflight and the webhook. Every replica runs the adapters: a
// second replica's acquire is a renewal of the same holder, its release a no-op.
import type { NodeSignalState } from "@lockstep/contracts";
import { isOperationName, type OperationName } from "@lockstep/lease-policy";

/** Every adapted lease's holder starts with this (the webhook's acts-for rules match on it). */
export const ADAPTER_HOLDER_PREFIX = "adapter:";

/** The adapters, by the name LEASE_ADAPTERS uses, and the source kinds each reads. */
export const ADAPTERS = {
  nodemaintenance: ["NodeMaintenance"],
  remediation: ["SelfNodeRemediation", "FenceAgentsRemediation"],
  kured: ["DaemonSet"],
  machine: ["Machine"],
  machineconfig: ["Node"],
} as const satisfies Record<string, readonly string[]>;

export type AdapterName = keyof typeof ADAPTERS;
export const ADAPTER_NAMES = Object.keys(ADAPTERS) as AdapterName[];

/** Holder prefixes per source kind; one source object per node except where the node is appended. */
const HOLDER: Record<string, { prefix: string; perNode: boolean }> = {
  NodeMaintenance: { prefix: "adapter:nodemaintenance", perNode: false },
  SelfNodeRemediation: { prefix: "adapter:selfnoderemediation", perNode: false },
  FenceAgentsRemediation: { prefix: "adapter:fenceagentsremediation", perNode: false },
  // kured's one DaemonSet locks many nodes: the holder names the node, not the DaemonSet.
  DaemonSet: { prefix: "adapter:kured", perNode: true },
  Machine: { prefix: "adapter:machine", perNode: false },
  Node: { prefix: "adapter:machineconfig", perNode: true },
};

/** The holder prefix of each adapter's leases (for DEFAULT_ACTS_FOR and documentation). */
export function adapterHolderPrefix(kind: keyof typeof HOLDER): string {
  return HOLDER[kind]!.prefix;
}

/** One signal as a lease to hold. */
export interface AdaptedSignal {
  holder: string;
  node: string;
  operation: OperationName;
  /** The lease's reason: the source's own description. */
  reason: string;
  /** "NodeMaintenance nm-1", for messages. */
  source: string;
}

export interface SignalProblem {
  source: string;
  problem: string;
}

function holderOf(kind: string, namespace: string, name: string, node: string): string | undefined {
  const h = HOLDER[kind];
  if (h === undefined) return undefined;
  return h.perNode ? `${h.prefix}/${node}` : `${h.prefix}/${namespace ? `${namespace}/` : ""}${name}`;
}

/**
 * The signals to hold leases for now: from enabled adapters, not lapsed on this replica's clock
 * (kured's TTL), one per (holder, node). What cannot be adapted is listed, never thrown.
 */
export function adaptedSignals(states: readonly NodeSignalState[], nowMs: number, enabled: ReadonlySet<AdapterName>): { signals: AdaptedSignal[]; problems: SignalProblem[] } {
  const kinds = new Set<string>([...enabled].flatMap((a) => ADAPTERS[a]));
  const signals: AdaptedSignal[] = [];
  const problems: SignalProblem[] = [];
  const seen = new Set<string>();
  for (const st of states) {
    const src = st.source;
    if (src === undefined || !kinds.has(src.kind)) continue;
    const source = `${src.kind} ${src.namespace ? `${src.namespace}/` : ""}${src.name}`;
    for (const s of st.signals) {
      if (s.expires !== undefined && s.expires.getTime() <= nowMs) continue;
      if (!isOperationName(s.operation)) {
        problems.push({ source, problem: `unknown operation "${s.operation}"` });
        continue;
      }
      if (s.node === "") {
        problems.push({ source, problem: "no node" });
        continue;
      }
      const holder = holderOf(src.kind, src.namespace, src.name, s.node);
      if (holder === undefined) continue;
      const id = `${holder}\u0000${s.node}`;
      if (seen.has(id)) continue;
      seen.add(id);
      signals.push({ holder, node: s.node, operation: s.operation, reason: s.description || source, source });
    }
  }
  signals.sort((a, b) => a.node.localeCompare(b.node) || a.holder.localeCompare(b.holder));
  return { signals, problems };
}

/** A valid hold on a node, as the coordinator judges it. */
export interface CurrentHold {
  node: string;
  holder: string;
  operation: OperationName | undefined;
  expiresInSeconds: number;
}

export type AdapterAction =
  | { kind: "acquire"; signal: AdaptedSignal }
  | { kind: "renew"; signal: AdaptedSignal }
  /** Another holder holds the node for the same operation: the signal is already represented. */
  | { kind: "covered"; signal: AdaptedSignal; by: string }
  | { kind: "release"; node: string; holder: string };

export interface PlanInput {
  signals: readonly AdaptedSignal[];
  /** Every valid hold (ours and foreign; a node may have several, e.g. ours and a medik8s Lease). */
  holds: readonly CurrentHold[];
  /** Renew once less than this is left. */
  renewBeforeSeconds: number;
}

const isAdapter = (holder: string) => holder.startsWith(ADAPTER_HOLDER_PREFIX);

/** What to do now; releases first, so a node moving from one disruptor to another frees up first. */
export function planAdapters(input: PlanInput): AdapterAction[] {
  const id = (holder: string, node: string) => `${holder}\u0000${node}`;
  const wanted = new Set(input.signals.map((s) => id(s.holder, s.node)));
  // An adapter's hold whose signal is gone is released in this pass: it covers nothing.
  const releasing = (h: CurrentHold) => isAdapter(h.holder) && !wanted.has(id(h.holder, h.node));
  const byNode = new Map<string, CurrentHold[]>();
  for (const h of input.holds) byNode.set(h.node, [...(byNode.get(h.node) ?? []), h]);
  const release: AdapterAction[] = input.holds.filter(releasing).map((h) => ({ kind: "release", node: h.node, holder: h.holder }));
  const rest: AdapterAction[] = [];
  for (const signal of input.signals) {
    const holds = byNode.get(signal.node) ?? [];
    const own = holds.find((h) => h.holder === signal.holder);
    const cover = holds.find((h) => h.holder !== signal.holder && h.operation === signal.operation && !releasing(h));
    if (cover !== undefined) {
      rest.push({ kind: "covered", signal, by: cover.holder });
      // Covered by the disruptor's own Lease (NMO's medik8s Lease, an MCO asking Lockstep): ours
      // would only stand in its way. Another adapter's cover is not relied on (they could swap).
      if (own !== undefined && !isAdapter(cover.holder)) release.push({ kind: "release", node: own.node, holder: own.holder });
    } else if (own === undefined) rest.push({ kind: "acquire", signal });
    else if (own.expiresInSeconds < input.renewBeforeSeconds) rest.push({ kind: "renew", signal });
  }
  return [...release, ...rest];
}
