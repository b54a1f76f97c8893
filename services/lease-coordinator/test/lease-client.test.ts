// @lockstep/lease-client against the real service: the renew loop keeps the lease past its
// duration, and the handle's signal fires when an admin force-takes the node.
import { acquireLease, CoordinatorNodeLeaser, LeaseDeniedError } from "@lockstep/lease-client";
import { OperationType } from "@lockstep/contracts";
import { waitFor } from "@lockstep/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { acquire, holdersInApi, NS, startWorld, type World } from "./harness.js";

let world: World;

beforeAll(async () => {
  world = await startWorld({ nodes: ["c1", "c2", "c3"] });
});

afterAll(async () => {
  await world?.stop();
});


describe("lease-client", () => {
  it("renews automatically, then its signal fires when an admin force-takes the node (renew refused twice)", async () => {
    const states: string[] = [];
    const handle = await acquireLease({
      address: world.replicas[0]!.address,
      node: "c1",
      operation: "Update",
      holder: "mcd/c1",
      reason: "rendered-worker-3",
      durationSeconds: 2,
      timings: { retryPeriodSeconds: 0.2, renewDeadlineSeconds: 1.5, maxConsecutiveLosses: 2 },
      onStateChange: (s) => states.push(s),
    });
    expect(handle.lease.holder).toBe("mcd/c1");
    // Renewed until the hold outlasts the 2 s duration + 3 s allowance several times over: still ours.
    const heldFor = async () => {
      const l = await world.coord.readNamespacedLease({ name: "c1", namespace: NS });
      return (Date.parse(String(l.spec?.renewTime)) - Date.parse(String(l.spec?.acquireTime))) / 1000;
    };
    await waitFor(async () => (await heldFor()) > 6, { timeoutMs: 15_000, what: "a hold longer than duration + allowance" });
    expect(world.replicas[0]!.coordinator.sweep()).toBe(0);
    expect(world.replicas[0]!.coordinator.list().find((l) => l.node === "c1")?.holder).toBe("mcd/c1");
    expect(handle.signal.aborted).toBe(false);
    expect((await holdersInApi(world)).get("c1")).toBe("mcd/c1");

    const admin = await acquire(world.replicas[0]!.client, { node: "c1", holder: "admin-alice", operation: OperationType.OPERATION_TYPE_MAINTENANCE, reason: "bad DIMM", force: true });
    expect(admin.granted).toBe(true);
    await waitFor(() => handle.signal.aborted, { timeoutMs: 10_000, what: "the holder's signal" });
    expect(String((handle.signal.reason as Error).message)).toMatch(/lost: .*held by admin-alice/);
    expect(handle.state).toBe("lost");
    expect(states).toContain("lost");
    await handle.release(); // nothing of ours left: resolves without touching the admin's hold
    expect((await holdersInApi(world)).get("c1")).toBe("admin-alice");
  });

  it("throws LeaseDeniedError with the holder when the node is under maintenance", async () => {
    const err = await acquireLease({ address: world.replicas[0]!.address, node: "c1", operation: "Reboot", holder: "kured", reason: "reboot", durationSeconds: 30 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LeaseDeniedError);
    expect((err as LeaseDeniedError).reason).toBe("maintenance flagged: admin-alice, bad DIMM");
    expect((err as LeaseDeniedError).current?.holder).toBe("admin-alice");
  });

  it("release stops the renew loop and frees the node for the next holder", async () => {
    const handle = await acquireLease({ address: world.replicas[0]!.address, node: "c2", operation: "Drain", holder: "drainer", reason: "drain", durationSeconds: 4 });
    await handle.release();
    expect(handle.state).toBe("released");
    expect(handle.signal.aborted).toBe(false);
    expect((await holdersInApi(world)).get("c2")).toBeUndefined();
    const rv = (await world.coord.readNamespacedLease({ name: "c2", namespace: NS })).metadata?.resourceVersion;
    const next = await acquireLease({ address: world.replicas[0]!.address, node: "c2", operation: "Update", holder: "mcd/c2", reason: "update", durationSeconds: 4 });
    expect(next.lease.holder).toBe("mcd/c2");
    expect(next.lease.resourceVersion).not.toBe(rv);
    await next.release();
  });

  it("CoordinatorNodeLeaser gives cluster-sim's actors one holder per node", async () => {
    const mco = new CoordinatorNodeLeaser({ address: world.replicas[0]!.address, holder: "cluster-sim-mcd", durationSeconds: 10 });
    const nhc = new CoordinatorNodeLeaser({ address: world.replicas[0]!.address, holder: "cluster-sim-nhc", durationSeconds: 10 });
    try {
      expect(await mco.acquire("c3", "Update")).toBe(true);
      expect(await mco.acquire("c3", "Update")).toBe(true); // re-acquire while holding
      expect(await nhc.acquire("c3", "Remediation")).toBe(false); // fencing never takes a held node
      expect(mco.signalFor("c3", "Update")?.aborted).toBe(false);
      await mco.release("c3", "Update");
      expect(await nhc.acquire("c3", "Remediation")).toBe(true);
      expect((await holdersInApi(world)).get("c3")).toBe("cluster-sim-nhc/remediation");
    } finally {
      await mco.close();
      await nhc.close();
    }
    expect((await holdersInApi(world)).get("c3")).toBeUndefined();
  });
});
