// The lease adapters' controller over a plain coordinator: a change makes one folded `changes` pass
// due, the skeleton's full looks (sync, fresh again, a term, a resync) the `all` pass; a pass with
// nothing signalled lists the leases only when an adapter's lease may have changed.
import type { StateChange } from "@lockstep/bus";
import { stateKey, type LeaseState } from "@lockstep/contracts";
import { silentLogger } from "@lockstep/runtime";
import { describe, expect, it } from "vitest";
import { adaptersController, CHANGE_DELAY_MS } from "./controller.js";
import { ADAPTER_HOLDER_PREFIX } from "./plan.js";
import { AdapterReconciler, type AdapterCoordinator } from "./reconciler.js";

const leaseChange = (holder: string | undefined): StateChange => ({
  key: stateKey("lease", "w1", "lockstep"),
  parsed: { kind: "lease", name: "w1", namespace: "lockstep" },
  op: holder === undefined ? "delete" : "put",
  value: holder === undefined ? undefined : ({ holderIdentity: holder } as LeaseState),
  revision: 1,
});

function world() {
  let lists = 0;
  const coordinator: AdapterCoordinator = {
    list: () => (lists++, []),
    hold: () => undefined,
    acquire: () => Promise.reject(new Error("nothing is signalled")),
    release: () => Promise.reject(new Error("nothing is held")),
  };
  const adapters = new AdapterReconciler({ coordinator, signals: () => [], enabled: new Set(["nodemaintenance"]), events: { emit: () => undefined }, namespace: "lockstep", logger: silentLogger(), durationSeconds: 30 });
  return { controller: adaptersController(adapters, { resyncMs: 5_000 }), lists: () => lists };
}

describe("adaptersController", () => {
  it("is the leader's, folds changes into one pass and takes full looks on the skeleton's cue", () => {
    const { controller } = world();
    expect(controller).toMatchObject({ name: "lease-adapters", kinds: ["nodeSignal", "lease"], leaderOnly: true, delayMs: CHANGE_DELAY_MS, resyncMs: 5_000 });
    expect([...controller.keysFor!(leaseChange("someone"))]).toEqual(["changes"]);
    expect([...controller.allKeys!(undefined as never)]).toEqual(["all"]);
  });

  it("lists the leases on a change only when an adapter's lease may have changed, and on every full look", async () => {
    const { controller, lists } = world();
    const ctx = { cache: undefined as never, signal: new AbortController().signal };
    await controller.reconcile("all", ctx);
    expect(lists()).toBe(1);
    // Another holder's lease: nothing signalled and no adapter lease, so nothing to look at.
    controller.keysFor!(leaseChange("someone"));
    await controller.reconcile("changes", ctx);
    expect(lists()).toBe(1);
    controller.keysFor!(leaseChange(`${ADAPTER_HOLDER_PREFIX}nodemaintenance/nm-w1`));
    await controller.reconcile("changes", ctx);
    expect(lists()).toBe(2);
    controller.keysFor!(leaseChange(undefined));
    await controller.reconcile("changes", ctx);
    expect(lists()).toBe(3);
    await controller.reconcile("all", ctx);
    expect(lists()).toBe(4);
  });
});
