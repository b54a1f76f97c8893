// Several coordinator replicas without leader election, against one kube-sim: every decision is a
// CAS on the Lease objects, so injected 409s and concurrent replicas never produce two holders.
import { OperationType } from "@lockstep/contracts";
import { waitFor } from "@lockstep/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { acquire, call, holdersInApi, NS, startWorld, type World } from "../test-harness.js";

let world: World;
const hammered = ["h1", "h2", "h3", "h4", "h5", "h6"];
const pooled = ["p1", "p2", "p3", "p4", "p5", "p6", "p7", "p8"];
/** Every budget violation and double holder seen by the store at the instant of a write. */
const violations: string[] = [];

beforeAll(async () => {
  world = await startWorld({
    nodes: [...["r1", "r2", ...hammered].map((name) => ({ name, pool: "infra" })), ...pooled.map((name) => ({ name, pool: "batch" }))],
    pools: { batch: "2" },
    replicas: 3,
  });
  // Checked at every committed Lease write: at most 2 valid holds in pool batch (maxUnavailable 2).
  world.sim.store.onCommit((t, ev) => {
    if (t.plural !== "leases") return;
    const leases = world.sim.store.entries(t, NS).map((e) => e.obj as any);
    const heldPool = leases.filter((l) => pooled.includes(l.metadata.name) && l.spec?.holderIdentity);
    if (heldPool.length > 2) {
      const slots = leases.filter((l) => l.metadata.name.startsWith("lockstep-slot.")).map((l) => `${l.metadata.name}=${l.spec?.holderIdentity ?? ""}@${l.metadata.annotations?.["lockstep.io/node"]}`);
      violations.push(`rv ${ev.rv}: ${heldPool.map((l) => `${l.metadata.name}=${l.spec.holderIdentity}`).join(",")} slots ${slots.join(",")}`);
    }
  });
});

afterAll(async () => {
  await world?.stop();
});

describe("replicas", () => {
  it("scenario 01/02: with 409s injected on every Lease write path, 24 racing requesters on 3 replicas yield exactly one holder", async () => {
    world.sim.faults.set({ seed: 7, errors: [{ code: 409, probability: 0.3, verb: "create", resource: "leases" }, { code: 409, probability: 0.3, verb: "update", resource: "leases" }] });
    try {
      const results = await Promise.all(
        Array.from({ length: 24 }, (_, i) => acquire(world.replicas[i % 3]!.client, { node: "r1", holder: `racer-${i}` }).catch((err: Error) => ({ granted: false, error: err.message }))),
      );
      const winners = results.filter((r) => r.granted);
      expect(winners).toHaveLength(1);
      const holder = (winners[0] as { lease?: { holder: string } }).lease!.holder;
      expect((await holdersInApi(world)).get("r1")).toBe(holder);
      // Losers were told who won.
      const denied = results.filter((r) => !r.granted && "current" in r) as Array<{ current?: { holder: string } }>;
      expect(denied.length).toBeGreaterThan(0);
      for (const d of denied) expect(d.current?.holder).toBe(holder);
      expect(world.replicas.reduce((n, r) => n + r.coordinator.conflicts, 0)).toBeGreaterThan(0);
    } finally {
      world.sim.faults.clear();
    }
  });

  it("scenario 02: a takeover of an expired lease raced by two replicas from the same record has one winner", async () => {
    expect((await acquire(world.replicas[0]!.client, { node: "r2", holder: "old", durationSeconds: 1 })).granted).toBe(true);
    await waitFor(() => world.replicas.every((r) => r.coordinator.list().every((l) => l.node !== "r2")), { timeoutMs: 15_000, what: "r2 expired on every replica" });
    const [a, b] = await Promise.all([
      acquire(world.replicas[1]!.client, { node: "r2", holder: "taker-a" }),
      acquire(world.replicas[2]!.client, { node: "r2", holder: "taker-b" }),
    ]);
    expect([a.granted, b.granted].filter(Boolean)).toHaveLength(1);
    const winner = a.granted ? "taker-a" : "taker-b";
    expect((await holdersInApi(world)).get("r2")).toBe(winner);
    const lease = await world.coord.readNamespacedLease({ name: "r2", namespace: NS });
    expect(lease.spec?.leaseTransitions).toBe(1);
  });

  it("3 replicas hammered on the same nodes: never two holders of a node, never more than the pool allows", async () => {
    world.sim.faults.set({ seed: 11, errors: [{ code: 409, probability: 0.05, verb: "update", resource: "leases" }] });
    const owner = new Map<string, string>();
    const doubles: string[] = [];
    const errors: string[] = [];
    const noops: string[] = [];
    let grants = 0;
    const nodesAll = [...hammered, ...pooled];
    const worker = async (w: number) => {
      for (let round = 0; round < 25; round++) {
        const node = nodesAll[(w * 7 + round * 5) % nodesAll.length]!;
        const holder = `worker-${w}`;
        const replica = world.replicas[(w + round) % 3]!;
        const res = await acquire(replica.client, { node, holder, operation: pooled.includes(node) ? OperationType.OPERATION_TYPE_UPDATE : OperationType.OPERATION_TYPE_REBOOT }).catch((err: Error) => (errors.push(`${node} ${holder}: ${err.message}`), { granted: false }));
        if (!res.granted) continue;
        grants++;
        const other = owner.get(node);
        if (other !== undefined && other !== holder) doubles.push(`${node}: ${holder} granted while ${other} holds it`);
        owner.set(node, holder);
        await new Promise((r) => setTimeout(r, 2));
        // The guarded work stops before the release is sent (release only after the action ended).
        owner.delete(node);
        const rel = await call<unknown, { released: boolean }>(world.replicas[(w + round + 1) % 3]!.client, "release", { node, holder });
        if (!rel.released) noops.push(`${node} ${holder}`);
      }
    };
    try {
      await Promise.all(Array.from({ length: 12 }, (_, w) => worker(w)));
    } finally {
      world.sim.faults.clear();
    }
    expect(errors).toEqual([]);
    expect(noops).toEqual([]);
    expect(doubles).toEqual([]);
    expect(violations).toEqual([]);
    expect(grants).toBeGreaterThan(20);
    // Everything was released: no Lease in the API names a holder on those nodes.
    const holders = await holdersInApi(world);
    for (const n of nodesAll) expect(holders.get(n)).toBeUndefined();
  });
});
