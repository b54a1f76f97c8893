// Integration (issue 29): a watch that silently delivers nothing. The watcher reaches kube-sim
// through a TCP relay that the test freezes: every connection stays open, no byte moves, nothing is
// closed — a hung proxy or a black-holed route. Without an idle bound the watcher would go on
// vouching for its view until the watch's server-side timeout (which a frozen connection never
// delivers either); with it, the hung watches are declared hung, the heartbeat is withheld and a
// consumer's view turns stale within WATCH_IDLE_TIMEOUT + STATE_MAX_AGE. After the relay resumes,
// the watcher relists (what changed meanwhile arrives) and the view is fresh again.
import { CoreV1Api } from "@kubernetes/client-node";
import { kubeConfigForUrl } from "@lockstep/kube/client-node";
import { startKubeSim, type KubeSim } from "@lockstep/kube-sim";
import { StateFreshness } from "@lockstep/runtime";
import { startTcpRelay, TestStack, waitFor, type TcpRelay } from "@lockstep/testing";
import type { StateCache } from "@lockstep/bus";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startWatchedState } from "./test-harness.js";

// Short, so the test is quick; the README gives the bound at the defaults (10 s / 15 s / 15 s).
const IDLE_MS = 3_000;
const MAX_AGE_MS = 1_000;
const HEARTBEAT_MS = 200; // startWatchedState's interval

// Two ways a healthy watch shows life, each alone: the API server's bookmarks on a watch that would
// run for 5 minutes (so a hung one can only be noticed by the idle bound, never by a re-open), and
// short server-side timeouts with no bookmark in between (the watcher's default, which does not rely
// on the API server's bookmark pace).
const cases = [
  { name: "bookmarks every second on a 300 s watch", bookmarkIntervalMs: 1_000, watchTimeoutSeconds: 300 },
  { name: "2 s watch timeouts, no bookmark between", bookmarkIntervalMs: 600_000, watchTimeoutSeconds: 2 },
];

describe.each(cases)("a frozen watch ($name)", ({ bookmarkIntervalMs, watchTimeoutSeconds }) => {
  let sim: KubeSim;
  let relay: TcpRelay;
  let cache: StateCache;
  let freshness: StateFreshness;
  const stack = new TestStack();
  const explain = () => `freshness ${JSON.stringify(freshness.current())}`;

  beforeAll(async () => {
    sim = stack.add(await startKubeSim({ crds: "openshift", bookmarkIntervalMs }));
    const nats = await stack.nats();
    relay = await startTcpRelay(sim.url);
    stack.defer(() => relay.close());
    await kubeConfigForUrl(sim.url).makeApiClient(CoreV1Api).createNode({ body: { metadata: { name: "before" } } });
    cache = await startWatchedState(stack, { kc: kubeConfigForUrl(relay.url), natsUrl: nats.url, informer: { watchTimeoutSeconds, idleTimeoutMs: IDLE_MS } });
    freshness = new StateFreshness({ source: cache, maxAgeMs: MAX_AGE_MS });
    await waitFor(() => cache.synced && cache.get("node", "before") && freshness.fresh, { timeoutMs: 30_000, what: "the watcher's first sync and a fresh view", explain });
  });

  afterAll(() => stack.close());

  it("is not suspected while merely quiet: the heartbeat goes on for twice the idle bound", async () => {
    let beats = 0;
    let longestGapMs = 0;
    let last = Date.now();
    const off = cache.onHeartbeat(() => {
      const now = Date.now();
      longestGapMs = Math.max(longestGapMs, now - last);
      last = now;
      beats++;
    });
    const quietMs = 2 * IDLE_MS;
    const from = Date.now();
    await waitFor(() => Date.now() - from >= quietMs && beats > 0, { timeoutMs: quietMs + 10_000, what: "a quiet spell longer than the idle bound", explain });
    off();
    expect(freshness.fresh).toBe(true);
    expect(longestGapMs).toBeLessThan(IDLE_MS);
  });

  it("is declared hung within the idle bound: the consumer's view turns stale, and fresh again after the relay resumes", async () => {
    const core = kubeConfigForUrl(sim.url).makeApiClient(CoreV1Api);
    const frozenAt = Date.now();
    relay.freeze();
    await waitFor(() => !freshness.fresh, { timeoutMs: 30_000, what: "the consumer's view stale", explain });
    const staleAfterMs = Date.now() - frozenAt;
    // The figure: freeze → stale. At most the idle bound, one heartbeat interval and STATE_MAX_AGE
    // (a watch re-opened into the freeze is noticed sooner: within one interval); slack for a loaded
    // machine. Without the bound, the 300 s case would stay fresh for 5 minutes and time out here.
    console.info(`frozen watch (${watchTimeoutSeconds} s watches): consumer stale ${(staleAfterMs / 1000).toFixed(2)} s after the freeze (idle bound ${IDLE_MS / 1000} s, STATE_MAX_AGE ${MAX_AGE_MS / 1000} s)`);
    expect(staleAfterMs).toBeGreaterThan(MAX_AGE_MS - HEARTBEAT_MS); // counted from the last beat, which may precede the freeze
    expect(staleAfterMs).toBeLessThan(IDLE_MS + HEARTBEAT_MS + MAX_AGE_MS + 4_000);

    // Changed while frozen: only a relist (or a resumed watch) can bring it.
    await core.createNode({ body: { metadata: { name: "during-freeze" } } });
    await core.deleteNode({ name: "before" });
    relay.resume();
    await waitFor(() => freshness.fresh && cache.get("node", "during-freeze") && !cache.get("node", "before"), { timeoutMs: 30_000, what: "fresh again, with what changed during the freeze", explain });
  });
});
