// The skeleton's leader gate against kube-sim over real HTTP: of two replicas only one runs the
// leader's work, the other takes over when the first stops (its Lease released), work registered
// mid-term starts at once, a failing work gives the Lease up and fails the replica, and the
// `lockstep_leader` gauge says who leads.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startKubeSim, type KubeSim } from "@lockstep/kube-sim";
import { createMetricsRegistry, loadConfig, serviceConfigSchema, silentLogger } from "@lockstep/runtime";
import { waitFor } from "@lockstep/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { electionNamespace, leaderElection, whenLeading, type LeaderElection } from "./leader.js";

let sim: KubeSim;
let kubeconfig: string;
beforeAll(async () => {
  sim = await startKubeSim({});
  kubeconfig = join(mkdtempSync(join(tmpdir(), "lockstep-leader-")), "kubeconfig");
  writeFileSync(kubeconfig, sim.kubeconfig());
  await fetch(`${sim.url}/api/v1/namespaces`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ apiVersion: "v1", kind: "Namespace", metadata: { name: "ha" } }) });
});
afterAll(async () => sim.stop());

const schema = serviceConfigSchema({});
let seq = 0;

function replica(service: string, name: string) {
  const config = loadConfig(schema, {
    NATS_URL: "nats://127.0.0.1:1",
    KUBECONFIG: kubeconfig,
    POD_NAME: name,
    LEADER_ELECTION_NAMESPACE: "ha",
    LEADER_ELECTION_LEASE_DURATION: "2s",
    LEADER_ELECTION_RENEW_DEADLINE: "1200ms",
    LEADER_ELECTION_RETRY_PERIOD: "200ms",
  });
  const registry = createMetricsRegistry({ service });
  const election: LeaderElection = leaderElection({ service, config, logger: silentLogger(), registry });
  const stop = new AbortController();
  const running = election.runnable.start(stop.signal);
  const worked: string[] = [];
  return { election, registry, worked, running, stop: async () => (stop.abort(), running) };
}

const gauge = async (r: ReturnType<typeof replica>) => (await r.registry.getSingleMetric("lockstep_leader")!.get()).values[0]?.value;

describe("leader gate", () => {
  it("runs the leader's work on one replica, hands it over on stop, and starts work registered mid-term", async () => {
    const service = `svc-${++seq}`;
    const a = replica(service, "a");
    const b = replica(service, "b");
    for (const r of [a, b]) r.election.gate.whileLeading("count", async (term) => {
      r.worked.push("start");
      await new Promise<void>((res) => term.addEventListener("abort", () => res(), { once: true }));
      r.worked.push("stop");
    });
    await waitFor(() => a.election.gate.isLeader() || b.election.gate.isLeader(), { what: "a leader" });
    const [leader, follower] = a.election.gate.isLeader() ? [a, b] : [b, a];
    expect(leader.worked).toEqual(["start"]);
    expect(follower.worked).toEqual([]);
    expect(await gauge(leader)).toBe(1);
    expect(await gauge(follower)).toBe(0);
    expect(leader.election.lease).toBe(`lockstep-${service}`);
    expect(leader.election.identity).toMatch(/^[ab]_[0-9a-f-]{36}$/);

    let late = false;
    leader.election.gate.whileLeading("late", async (term) => {
      late = true;
      await new Promise<void>((res) => term.addEventListener("abort", () => res(), { once: true }));
    });
    expect(late).toBe(true);

    await leader.stop();
    expect(leader.worked).toEqual(["start", "stop"]);
    await waitFor(() => follower.election.gate.isLeader(), { what: "the follower takes over after the release" });
    expect(follower.worked).toEqual(["start"]);
    await follower.stop();
    expect(follower.worked).toEqual(["start", "stop"]);
  });

  it("gives the Lease up and fails the replica when the leader's work fails", async () => {
    const service = `svc-${++seq}`;
    const a = replica(service, "a");
    a.election.gate.whileLeading("broken", async () => {
      throw new Error("cannot write");
    });
    await expect(a.running).rejects.toThrow("cannot write");
    const lease = (await (await fetch(`${sim.url}/apis/coordination.k8s.io/v1/namespaces/ha/leases/lockstep-${service}`)).json()) as { spec: { holderIdentity: string } };
    expect(lease.spec.holderIdentity).toBe("");
  });

  it("runs the work for the life of the signal when there is no gate (one replica)", async () => {
    const stop = new AbortController();
    let ran = false;
    const done = whenLeading(undefined, "solo", stop.signal, async (term) => {
      ran = true;
      expect(term).toBe(stop.signal);
    });
    await done;
    expect(ran).toBe(true);
  });

  it("finds the election namespace in the setting, the pod's namespace, the service account, else lockstep-system", () => {
    expect(electionNamespace({ LEADER_ELECTION_NAMESPACE: "x", POD_NAMESPACE: "y" })).toBe("x");
    expect(electionNamespace({ POD_NAMESPACE: "y" })).toBe("y");
    const sa = join(mkdtempSync(join(tmpdir(), "lockstep-sa-")), "namespace");
    writeFileSync(sa, "from-sa\n");
    expect(electionNamespace({}, sa)).toBe("from-sa");
    expect(electionNamespace({}, "/nonexistent")).toBe("lockstep-system");
  });
});
