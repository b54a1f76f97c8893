// Leader election against kube-sim over real HTTP: one leader among candidates, the record client-go
// writes, hand-over on a graceful stop, fencing (a leader cut off from the API stops before anyone
// can take over), expiry judged by observation time (a skewed wall clock changes nothing), and a
// failed term releases the lease.
import { createServer, connect, type Server, type Socket } from "node:net";
import { startKubeSim, type KubeSim } from "@lockstep/kube-sim";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { kubeAccessForUrl } from "./access.js";
import { KubeHttp } from "./http.js";
import { LeaderElector, leaderElectionTimingsProblem, type LeaderElectorOptions } from "./leader-election.js";

let sim: KubeSim;
beforeAll(async () => {
  sim = await startKubeSim({});
  await new KubeHttp(kubeAccessForUrl(sim.url)).request("POST", "/api/v1/namespaces", { body: { apiVersion: "v1", kind: "Namespace", metadata: { name: "lockstep-system" } } });
});
afterAll(async () => sim.stop());

const FAST = { leaseDurationMs: 2_000, renewDeadlineMs: 1_200, retryPeriodMs: 200 };
let leaseSeq = 0;

const until = async (f: () => boolean, what: string, ms = 20_000) => {
  const end = Date.now() + ms;
  while (!f()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
};

/** A candidate with its own record of when its terms began and ended (monotonic ms). */
function candidate(name: string, identity: string, o: Partial<LeaderElectorOptions> & { url?: string } = {}) {
  const terms: Array<{ start: number; end?: number }> = [];
  const elector = new LeaderElector({ http: new KubeHttp(kubeAccessForUrl(o.url ?? sim.url)), namespace: "lockstep-system", name, identity, ...FAST, ...o });
  const stop = new AbortController();
  let fail: Error | undefined;
  const done = elector.run(stop.signal, async (term) => {
    const t: { start: number; end?: number } = { start: performance.now() };
    terms.push(t);
    await new Promise<void>((r) => term.addEventListener("abort", () => r(), { once: true }));
    t.end = performance.now();
    if (fail) throw fail;
  });
  return {
    elector,
    terms,
    done,
    stop: () => (stop.abort(), done),
    failNextTerm: (err: Error) => (fail = err),
  };
}

async function leaseSpec(name: string) {
  const http = new KubeHttp(kubeAccessForUrl(sim.url));
  const l = await http.request<{ spec: Record<string, unknown> }>("GET", `/apis/coordination.k8s.io/v1/namespaces/lockstep-system/leases/${name}`);
  return l.spec;
}

/** A TCP relay in front of kube-sim that can be cut: the candidate behind it loses the API server. */
async function relay(target: string): Promise<{ url: string; cut(): void; close(): Promise<void> }> {
  const { hostname, port } = new URL(target);
  const sockets = new Set<Socket>();
  let open = true;
  const server: Server = createServer((client) => {
    if (!open) return client.destroy();
    const upstream = connect(Number(port), hostname);
    sockets.add(client).add(upstream);
    client.pipe(upstream).pipe(client);
    const drop = () => (client.destroy(), upstream.destroy(), sockets.delete(client), sockets.delete(upstream));
    client.on("error", drop).on("close", drop);
    upstream.on("error", drop).on("close", drop);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const addr = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${addr.port}`,
    cut: () => {
      open = false;
      for (const s of sockets) s.destroy();
    },
    close: () => new Promise((r) => server.close(() => r())),
  };
}

describe("LeaderElector", () => {
  it("elects exactly one of three candidates and writes client-go's Lease record", async () => {
    const name = `role-${++leaseSeq}`;
    const cs = ["a", "b", "c"].map((id) => candidate(name, id));
    await until(() => cs.some((c) => c.elector.isLeader()), "a leader");
    // Several renew periods later there is still exactly one.
    for (let i = 0; i < 5; i++) {
      await new Promise((r) => setTimeout(r, FAST.retryPeriodMs));
      expect(cs.filter((c) => c.elector.isLeader())).toHaveLength(1);
    }
    const leader = cs.find((c) => c.elector.isLeader())!;
    const spec = await leaseSpec(name);
    expect(spec).toMatchObject({ holderIdentity: leader.elector.identity, leaseDurationSeconds: 2, leaseTransitions: expect.any(Number) });
    expect(String(spec.renewTime)).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    for (const c of cs.filter((x) => x !== leader)) expect(c.elector.observedLeader()).toBe(leader.elector.identity);
    await Promise.all(cs.map((c) => c.stop()));
  });

  it("hands over on a graceful stop: the leader releases and another takes over without waiting for expiry", async () => {
    const name = `role-${++leaseSeq}`;
    // A long lease: a take-over before it could expire can only come from the release.
    const slow = { leaseDurationMs: 60_000, renewDeadlineMs: 40_000, retryPeriodMs: 200 };
    const a = candidate(name, "a", slow);
    await until(() => a.elector.isLeader(), "a leads");
    const b = candidate(name, "b", slow);
    await until(() => b.elector.observedLeader() === "a", "b follows a");
    const transitions = Number((await leaseSpec(name)).leaseTransitions);
    await a.stop();
    expect(a.terms[0]!.end).toBeDefined();
    await until(() => b.elector.isLeader(), "b leads after a's release", 10_000);
    const spec = await leaseSpec(name);
    expect(spec.holderIdentity).toBe("b");
    // "" counts as a holder change, then "b": client-go increments on each acquire by another.
    expect(Number(spec.leaseTransitions)).toBe(transitions + 1);
    await b.stop();
    expect((await leaseSpec(name)).holderIdentity).toBe("");
  });

  it("fences: a leader cut off from the API server stops leading before another can take over", async () => {
    const name = `role-${++leaseSeq}`;
    const r = await relay(sim.url);
    const a = candidate(name, "a", { url: r.url });
    await until(() => a.elector.isLeader(), "a leads");
    const b = candidate(name, "b");
    await until(() => b.elector.observedLeader() === "a", "b follows a");
    r.cut();
    await until(() => b.elector.isLeader(), "b takes over");
    const aEnd = a.terms[0]!.end;
    expect(aEnd).toBeDefined();
    // Both candidates run in this process, so their monotonic clocks are one clock.
    expect(aEnd!).toBeLessThan(b.terms[0]!.start);
    expect(a.elector.isLeader()).toBe(false);
    await Promise.all([a.stop(), b.stop()]);
    await r.close();
  });

  it("judges expiry by when it last saw the record change, not by the holder's clock", async () => {
    const name = `role-${++leaseSeq}`;
    // The leader's clock is an hour behind: its renewTime looks long expired to anyone comparing clocks.
    const hourAgo = () => Date.now() - 3_600_000;
    const a = candidate(name, "a", { wallClock: hourAgo });
    await until(() => a.elector.isLeader(), "a leads");
    const b = candidate(name, "b", { wallClock: () => Date.now() + 3_600_000 });
    // Three lease durations of renewals by a: b never takes over.
    const end = Date.now() + 3 * FAST.leaseDurationMs;
    while (Date.now() < end) {
      expect(b.elector.isLeader()).toBe(false);
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(a.elector.isLeader()).toBe(true);
    await Promise.all([a.stop(), b.stop()]);
  });

  it("releases the lease when a term fails, and reports the failure", async () => {
    const name = `role-${++leaseSeq}`;
    const stop = new AbortController();
    const elector = new LeaderElector({ http: new KubeHttp(kubeAccessForUrl(sim.url)), namespace: "lockstep-system", name, identity: "a", ...FAST });
    await expect(elector.run(stop.signal, async () => Promise.reject(new Error("writer broke")))).rejects.toThrow("writer broke");
    expect((await leaseSpec(name)).holderIdentity).toBe("");
  });

  it("fails, saying what to do, when its namespace does not exist (no replica could ever lead)", async () => {
    const elector = new LeaderElector({ http: new KubeHttp(kubeAccessForUrl(sim.url)), namespace: "no-such-namespace", name: "x", identity: "a", ...FAST });
    await expect(elector.run(new AbortController().signal, async () => {})).rejects.toThrow(
      /namespace no-such-namespace does not exist, so Lease x cannot be created .* set LEADER_ELECTION_NAMESPACE, or run a single replica with LEADER_ELECTION=false/,
    );
  });

  it("refuses timings that could make two leaders act at once", () => {
    expect(leaderElectionTimingsProblem({ leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 })).toBeUndefined();
    expect(leaderElectionTimingsProblem({ leaseDurationMs: 10_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 })).toMatch(/renew deadline must be shorter/);
    expect(leaderElectionTimingsProblem({ leaseDurationMs: 15_000, renewDeadlineMs: 2_000, retryPeriodMs: 2_000 })).toMatch(/longer than 1.2 × the retry period/);
    expect(() => new LeaderElector({ http: new KubeHttp(kubeAccessForUrl(sim.url)), namespace: "n", name: "x", identity: "a", leaseDurationMs: 5_000, renewDeadlineMs: 6_000, retryPeriodMs: 1_000 })).toThrow(/renew deadline/);
  });
});
