// One writer among a service's replicas: the skeleton runs one LeaderElector per process (Lease
// `lockstep-<service>`), and a service hands it the work only the leader may do. Everything else
// (caches, gRPC reads, metrics, webhooks) runs on every replica, so a follower is warm and ready.
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { hostname } from "node:os";
import { KubeHttp, LeaderElector, loadKubeAccess, type LeaderElectionTimings } from "@lockstep/kube";
import { abortedPromise, type BaseConfig, type Logger, type Runnable } from "@lockstep/runtime";
import { Counter, Gauge, type Registry } from "prom-client";

/** The leader's work: runs for one term of leadership and must stop writing when `term` aborts. */
export type LeaderWork = (term: AbortSignal) => Promise<void>;

export interface LeaderGate {
  /** Whether this replica is the writer right now (always true when election is off). */
  isLeader(): boolean;
  /**
   * Runs `work` in every term of leadership, from now on (at once when a term is under way). A
   * failure ends the term, releases the Lease and fails the process (as client-go exits), so another
   * replica takes over.
   */
  whileLeading(name: string, work: LeaderWork): void;
  /** Told when a term begins (true) and ends (false). */
  onChange(listener: (leading: boolean) => void): void;
}

/** The gate and the Runnable that campaigns; the skeleton starts the Runnable first. */
export interface LeaderElection {
  gate: LeaderGate;
  runnable: Runnable;
  /** The Lease's name, and this replica's identity in it (undefined when election is off). */
  lease: string;
  identity: string | undefined;
}

const SA_NAMESPACE = "/var/run/secrets/kubernetes.io/serviceaccount/namespace";

/** Where the election Lease lives: the setting, else the pod's namespace, else lockstep-system. */
export function electionNamespace(c: Pick<BaseConfig, "LEADER_ELECTION_NAMESPACE" | "POD_NAMESPACE">, saFile = SA_NAMESPACE): string {
  if (c.LEADER_ELECTION_NAMESPACE) return c.LEADER_ELECTION_NAMESPACE;
  if (c.POD_NAMESPACE) return c.POD_NAMESPACE;
  try {
    const ns = readFileSync(saFile, "utf8").trim();
    if (ns) return ns;
  } catch {
    // not in a pod
  }
  return "lockstep-system";
}

/** client-go's identity: the pod (or host) name and a random UUID, so a restarted pod is a new candidate. */
export function electionIdentity(c: Pick<BaseConfig, "LEADER_ELECTION_ID" | "POD_NAME">): string {
  return c.LEADER_ELECTION_ID ?? `${c.POD_NAME ?? hostname()}_${randomUUID()}`;
}

export function electionTimings(c: Pick<BaseConfig, "LEADER_ELECTION_LEASE_DURATION" | "LEADER_ELECTION_RENEW_DEADLINE" | "LEADER_ELECTION_RETRY_PERIOD">): LeaderElectionTimings {
  return { leaseDurationMs: c.LEADER_ELECTION_LEASE_DURATION, renewDeadlineMs: c.LEADER_ELECTION_RENEW_DEADLINE, retryPeriodMs: c.LEADER_ELECTION_RETRY_PERIOD };
}

export function leaderElection(o: { service: string; config: BaseConfig; logger: Logger; registry?: Registry }): LeaderElection {
  const lease = `lockstep-${o.service}`;
  const works: Array<{ name: string; work: LeaderWork }> = [];
  const listeners: Array<(leading: boolean) => void> = [];
  let term: { signal: AbortSignal; running: Array<Promise<void>>; fail(err: unknown): void } | undefined;
  let leading = false;
  const isLeader = o.registry
    ? new Gauge({ name: "lockstep_leader", help: "1 while this replica is the leader (the one writer) of its service, else 0", labelNames: ["lease"], registers: [o.registry] })
    : undefined;
  const terms = o.registry
    ? new Counter({ name: "lockstep_leader_terms_total", help: "Terms of leadership this replica began", labelNames: ["lease"], registers: [o.registry] })
    : undefined;
  isLeader?.set({ lease }, 0);

  const start = (t: NonNullable<typeof term>, w: { name: string; work: LeaderWork }) => {
    t.running.push(
      w.work(t.signal).catch((err) => {
        if (t.signal.aborted) return;
        o.logger.error({ err, work: w.name }, "leader work failed; giving up leadership");
        t.fail(err);
      }),
    );
  };

  /** One term: every registered work runs until the term ends, then all have stopped. */
  const lead = async (signal: AbortSignal): Promise<void> => {
    const ended = new AbortController();
    let failure: unknown;
    const stop = () => ended.abort();
    signal.addEventListener("abort", stop, { once: true });
    const t = { signal: ended.signal, running: [] as Array<Promise<void>>, fail: (err: unknown) => ((failure ??= err), ended.abort()) };
    term = t;
    leading = true;
    isLeader?.set({ lease }, 1);
    terms?.inc({ lease });
    for (const l of listeners) l(true);
    for (const w of works) start(t, w);
    await abortedPromise(ended.signal);
    // Works registered meanwhile were pushed onto `running` too: wait until each has stopped.
    for (let i = 0; i < t.running.length; i++) await t.running[i];
    signal.removeEventListener("abort", stop);
    term = undefined;
    leading = false;
    isLeader?.set({ lease }, 0);
    for (const l of listeners) l(false);
    if (failure !== undefined) throw failure;
  };

  const gate: LeaderGate = {
    isLeader: () => leading,
    whileLeading(name, work) {
      const w = { name, work };
      works.push(w);
      if (term) start(term, w);
    },
    onChange(listener) {
      listeners.push(listener);
    },
  };

  if (!o.config.LEADER_ELECTION) {
    return { gate, lease, identity: undefined, runnable: { name: "leader", start: (signal) => lead(signal) } };
  }
  const identity = electionIdentity(o.config);
  const namespace = electionNamespace(o.config);
  const runnable: Runnable = {
    name: "leader-election",
    async start(signal) {
      const http = new KubeHttp(await loadKubeAccess(o.config.KUBECONFIG), 4);
      const elector = new LeaderElector({
        http,
        namespace,
        name: lease,
        identity,
        ...electionTimings(o.config),
        logger: o.logger,
      });
      o.logger.info({ lease, namespace, identity }, "leader election: campaigning");
      await elector.run(signal, lead);
    },
  };
  return { gate, lease, identity, runnable };
}

/**
 * Runs `work` whenever this replica leads, until `signal` aborts; without a gate (one replica: an
 * in-process test, a tool) it simply runs for the life of `signal`. Resolves once stopped.
 */
export async function whenLeading(gate: LeaderGate | undefined, name: string, signal: AbortSignal, work: LeaderWork): Promise<void> {
  if (gate === undefined) return work(signal);
  gate.whileLeading(name, work);
  await abortedPromise(signal);
}
