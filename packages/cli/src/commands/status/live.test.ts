// `lockstep status` live mode against a real gRPC server serving UpdateStatusService with fixed
// answers: every answer's freshness reaches the user (a warning on stderr, `freshness` in JSON and
// YAML, the stale result that makes the command exit 3), in one-shot and --watch modes alike.
import { Server, ServerCredentials, type ServerWritableStream } from "@grpc/grpc-js";
import { StateFreshness, UpdateStatus, UpdateStatusServiceService, type UpdateStatusServiceServer, type WatchUpdateStatusRequest, type WatchUpdateStatusResponse } from "@lockstep/contracts";
import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { runLive, structured } from "./live.js";

const FRESH = StateFreshness.fromPartial({ ageSeconds: 0.4, stale: false, maxAgeSeconds: 15, heard: true });
const STALE = StateFreshness.fromPartial({ ageSeconds: 41.4, stale: true, maxAgeSeconds: 15, heard: true });
const WARNING = "warning: Lockstep's view of the cluster is 41 s old (the watcher has not been heard from); what follows may be out of date\n";
const STATUS = UpdateStatus.fromPartial({ controlPlane: { assessment: "Progressing" } as never });
/** What the server says of its view's age; a test sets it. */
let freshness = FRESH;

function sink(): Writable & { text: () => string } {
  let text = "";
  const w = new Writable({ write: (chunk, _enc, cb) => ((text += String(chunk)), cb()) });
  return Object.assign(w, { text: () => text });
}

let server: Server;
let addr: string;
beforeAll(async () => {
  server = new Server();
  const impl: UpdateStatusServiceServer = {
    getUpdateStatus: (_c, cb) => cb(null, { status: STATUS, freshness }),
    listNodeInsights: (_c, cb) => cb(null, { nodes: [], nextPageToken: "" }),
    renderStatus: (_c, cb) => cb(null, { text: "= Control Plane =\nAssessment:      Progressing\n", freshness }),
    // The aggregator's contract in miniature: the full status, then the view turning stale (alone), then fresh again.
    watchUpdateStatus: (call: ServerWritableStream<WatchUpdateStatusRequest, WatchUpdateStatusResponse>) => {
      call.write({ status: STATUS, changedNodes: [], removedNodes: [], freshness: FRESH });
      call.write({ status: undefined, changedNodes: [], removedNodes: [], freshness: STALE });
      if (freshness.stale) return call.end();
      call.write({ status: undefined, changedNodes: [], removedNodes: [], freshness: FRESH });
      call.end();
    },
  };
  server.addService(UpdateStatusServiceService, impl);
  const port = await new Promise<number>((res, rej) => server.bindAsync("127.0.0.1:0", ServerCredentials.createInsecure(), (e, p) => (e ? rej(e) : res(p))));
  addr = `127.0.0.1:${port}`;
});
afterAll(() => server.forceShutdown());

describe("lockstep status (live)", () => {
  it("prints the text alone and reports fresh while the view is fresh", async () => {
    freshness = FRESH;
    const out = sink(), err = sink();
    expect(await runLive({ server: addr, watch: false, output: "text", details: "none" }, out, err)).toEqual({ stale: false });
    expect(out.text()).toBe("= Control Plane =\nAssessment:      Progressing\n");
    expect(err.text()).toBe("");
  });

  it("warns on stderr, keeps stdout the exact text and reports stale (exit 3) while the view is stale", async () => {
    freshness = STALE;
    const out = sink(), err = sink();
    expect(await runLive({ server: addr, watch: false, output: "text", details: "none" }, out, err)).toEqual({ stale: true });
    expect(out.text()).toBe("= Control Plane =\nAssessment:      Progressing\n");
    expect(err.text()).toBe(WARNING);
  });

  it("carries freshness in -o json and -o yaml beside the status's own fields", async () => {
    freshness = STALE;
    const out = sink(), err = sink();
    expect(await runLive({ server: addr, watch: false, output: "json", details: "none" }, out, err)).toEqual({ stale: true });
    expect(JSON.parse(out.text())).toMatchObject({ controlPlane: { assessment: "Progressing" }, freshness: { ageSeconds: 41.4, stale: true, maxAgeSeconds: 15, heard: true } });
    expect(err.text()).toBe(WARNING);
    freshness = FRESH;
    const yaml = sink();
    expect(await runLive({ server: addr, watch: false, output: "yaml", details: "none" }, yaml, sink())).toEqual({ stale: false });
    expect(parse(yaml.text())).toMatchObject({ controlPlane: { assessment: "Progressing" }, freshness: { stale: false } });
    // A server that does not say (older aggregator): no freshness key, not stale.
    expect(JSON.parse(structured(STATUS, "json"))).not.toHaveProperty("freshness");
  });

  it("--watch -o json carries each message's freshness, warns as the view turns stale, and ends stale if it was", async () => {
    freshness = FRESH; // the stream goes stale, then fresh again
    const out = sink(), err = sink();
    expect(await runLive({ server: addr, watch: true, output: "json", details: "none" }, out, err)).toEqual({ stale: false });
    const lines = out.text().trim().split("\n").map((l) => JSON.parse(l));
    expect(lines.map((l) => l.freshness?.stale)).toEqual([false, true, false]);
    expect(lines[1]).toMatchObject({ changedNodes: 0, removedNodes: [], freshness: { ageSeconds: 41.4 } });
    expect(lines[1].status).toBeUndefined();
    expect(err.text()).toBe(WARNING);

    freshness = STALE; // the stream ends while stale
    const out2 = sink(), err2 = sink();
    expect(await runLive({ server: addr, watch: true, output: "json", details: "none" }, out2, err2)).toEqual({ stale: true });
    expect(err2.text()).toBe(WARNING);
  });
});
