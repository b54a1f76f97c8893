// Integration (issue 29): WatchUpdateStatus carries freshness. The watcher reaches kube-sim through
// a TCP relay the test freezes (a hung connection); once the watcher stops vouching, the aggregator's
// view turns stale and every open stream hears it at once, in a message of its own, although
// nothing in the cluster changed; after the relay resumes, a message says fresh again.
import { join } from "node:path";
import { credentials } from "@grpc/grpc-js";
import { DisruptionServiceClient, UpdateStatusServiceClient, type GetUpdateStatusResponse, type ListEffectivePoliciesResponse, type ListNodeInsightsResponse, type WatchUpdateStatusResponse } from "@lockstep/contracts";
import { kubeConfigForUrl } from "@lockstep/kube/client-node";
import { startKubeSim } from "@lockstep/kube-sim";
import { silentLogger } from "@lockstep/runtime";
import { ocUpgradeStatusDir, startTcpRelay, TestStack, waitFor } from "@lockstep/testing";
import { afterAll, describe, expect, it } from "vitest";
import { Aggregator } from "./aggregator/aggregator.js";
import { serveAggregator } from "./test-harness.js";

const CASE = "4.14.1-workers-started-updating-multiple-pools";
const stack = new TestStack();
afterAll(() => stack.close());

describe("WatchUpdateStatus freshness", () => {
  it("sends the view turning stale while the watcher's watch is frozen, and fresh again after", async () => {
    const sim = stack.add(await startKubeSim({ crds: "openshift" }));
    await sim.load({ files: ["-cv.yaml", "-co.yaml", "-mc.yaml", "-mcp.yaml", "-node.yaml"].map((s) => join(ocUpgradeStatusDir(), `${CASE}${s}`)) });
    const nats = await stack.nats();
    const relay = await startTcpRelay(sim.url);
    stack.defer(() => relay.close());
    const aggregator = new Aggregator({ logger: silentLogger(), debounceMs: 10 });
    const server = await serveAggregator(stack, {
      kc: kubeConfigForUrl(relay.url),
      natsUrl: nats.url,
      aggregator,
      watcher: { heartbeatIntervalMs: 200, informer: { watchTimeoutSeconds: 2, idleTimeoutMs: 3_000 } },
      stateMaxAgeMs: 1_000,
    });
    const client = new UpdateStatusServiceClient(`127.0.0.1:${server.port}`, credentials.createInsecure());
    stack.defer(() => client.close());
    await waitFor(() => aggregator.synced && aggregator.current()?.freshness?.stale === false, { timeoutMs: 30_000, what: "aggregator synced and fresh" });

    const messages: WatchUpdateStatusResponse[] = [];
    const stream = client.watchUpdateStatus({ omitNodes: true });
    stream.on("data", (m: WatchUpdateStatusResponse) => messages.push(m));
    stream.on("error", () => undefined);
    stack.defer(() => stream.cancel());
    const explain = () => JSON.stringify(messages.map((m) => ({ status: !!m.status, changed: m.changedNodes.length, freshness: m.freshness })));
    await waitFor(() => messages.length >= 1, { what: "the first message", explain });
    // Not `heard`: on a loaded machine the first message has been seen to go out before the
    // aggregator's view had a heartbeat of its own, while still within its bound (fresh).
    expect(messages[0]).toMatchObject({ status: expect.any(Object), freshness: { stale: false, maxAgeSeconds: 1 } });

    relay.freeze();
    const stale = await waitFor(() => messages.find((m) => m.freshness?.stale), { timeoutMs: 30_000, what: "a message saying stale", explain });
    // Alone: the status did not change, only how far it can be trusted.
    expect(stale).toMatchObject({ status: undefined, changedNodes: [], removedNodes: [], freshness: { stale: true, maxAgeSeconds: 1 } });
    // Stale is judged on the exact age (> 1 s); the wire rounds it to a tenth, so 1.04 s goes out as 1.
    expect(stale.freshness!.ageSeconds).toBeGreaterThanOrEqual(1);
    const answer = await new Promise<GetUpdateStatusResponse>((res, rej) => client.getUpdateStatus({ omitNodes: true }, (e, r) => (e ? rej(e) : res(r))));
    expect(answer.freshness).toMatchObject({ stale: true });
    // Every answer read off the view says so: the node list, and the disruption previews.
    const listed = await new Promise<ListNodeInsightsResponse>((res, rej) => client.listNodeInsights({ pool: "", assessment: "", pageSize: 10, pageToken: "" }, (e, r) => (e ? rej(e) : res(r))));
    expect(listed.freshness).toMatchObject({ stale: true, maxAgeSeconds: 1 });
    const disruption = new DisruptionServiceClient(`127.0.0.1:${server.port}`, credentials.createInsecure());
    stack.defer(() => disruption.close());
    const policies = await new Promise<ListEffectivePoliciesResponse>((res, rej) => disruption.listEffectivePolicies({}, (e, r) => (e ? rej(e) : res(r))));
    expect(policies.freshness).toMatchObject({ stale: true });

    relay.resume();
    const at = messages.indexOf(stale);
    await waitFor(() => messages.slice(at + 1).find((m) => m.freshness?.stale === false), { timeoutMs: 30_000, what: "a message saying fresh again", explain });
  });
});
