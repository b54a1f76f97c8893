// `lockstep bootimages` against a real gRPC server that serves BootImageService with fixed answers.
import { Server, ServerCredentials } from "@grpc/grpc-js";
import { BootImageServiceService, type BootImageServiceServer, type MachineSetPlan } from "@lockstep/contracts";
import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatPreview, formatStatus, runBootImages } from "./bootimages.js";

const plan = (name: string, action: string, extra: Partial<MachineSetPlan> = {}): MachineSetPlan => ({
  namespace: "openshift-machine-api",
  name,
  platform: "AWS",
  action,
  reason: "",
  currentImage: "ami-old",
  targetImage: "ami-new",
  patchJson: "",
  ...extra,
});
const PLANS = [
  plan("worker-a", "Patch", { patchJson: '{"spec":{"template":{"spec":{"providerSpec":{"value":{"ami":{"id":"ami-new"}}}}}}}' }),
  plan("hive", "Skip", { reason: "has OwnerReference (MachinePool/p), skipping boot image update", currentImage: "", targetImage: "" }),
];
const STATUS = { machineSets: [plan("worker-a", "UpToDate", { currentImage: "ami-new" })], clusterBootImageOcpVersion: "4.22.1", clusterBootImageRhcosVersion: "", releaseVersion: "4.22.1", updated: 1, skipped: 0, errors: 0 };

const FRESH = { ageSeconds: 0.4, stale: false, maxAgeSeconds: 15, heard: true };
const STALE = { ageSeconds: 41.4, stale: true, maxAgeSeconds: 15, heard: true };
/** What the server says of its view's age; a test sets it. */
let freshness = FRESH;

/** Collects what a command writes on stderr. */
function stderr(): Writable & { text: () => string } {
  let text = "";
  const w = new Writable({ write: (chunk, _enc, cb) => ((text += String(chunk)), cb()) });
  return Object.assign(w, { text: () => text });
}

let server: Server;
let addr: string;
beforeAll(async () => {
  server = new Server();
  const impl: BootImageServiceServer = {
    preview: (_c, cb) => cb(null, { plans: PLANS }),
    getStatus: (_c, cb) => cb(null, { status: STATUS, freshness }),
  };
  server.addService(BootImageServiceService, impl);
  const port = await new Promise<number>((res, rej) => server.bindAsync("127.0.0.1:0", ServerCredentials.createInsecure(), (e, p) => (e ? rej(e) : res(p))));
  addr = `127.0.0.1:${port}`;
});
afterAll(() => server.forceShutdown());

describe("lockstep bootimages", () => {
  it("prints the last pass", async () => {
    const out = await runBootImages(addr, false);
    expect(out).toBe(formatStatus(STATUS));
    expect(out).toContain("Cluster boot image:  OCP 4.22.1");
    expect(out).toMatch(/openshift-machine-api\/worker-a\s+AWS\s+UpToDate\s+ami-new\s+ami-new\s+-/);
  });
  it("--preview prints the plan with each patch", async () => {
    const out = await runBootImages(addr, true);
    expect(out).toBe(formatPreview(PLANS));
    expect(out).toContain('{"spec":{"template":{"spec":{"providerSpec":{"value":{"ami":{"id":"ami-new"}}}}}}}');
    expect(out).toContain("has OwnerReference (MachinePool/p), skipping boot image update");
    expect(out).toContain("1 of 2 MachineSets would be patched.");
  });
  it("an unreachable server is a clear error", async () => {
    await expect(runBootImages("127.0.0.1:1", false)).rejects.toThrow(/^cannot reach the bootimage-updater at 127\.0\.0\.1:1: .*(ECONNREFUSED|No connection|Deadline)/);
  });
  it("warns on stderr while the updater's view is stale, and -o json carries freshness", async () => {
    const fresh = stderr();
    expect(await runBootImages(addr, false, "text", fresh)).toBe(formatStatus(STATUS));
    expect(fresh.text()).toBe("");
    freshness = STALE;
    try {
      const warn = stderr();
      expect(await runBootImages(addr, false, "text", warn)).toBe(formatStatus(STATUS));
      expect(warn.text()).toBe("warning: Lockstep's view of the cluster is 41 s old (the watcher has not been heard from); what follows may be out of date\n");
      const json = JSON.parse(await runBootImages(addr, false, "json", stderr()));
      expect(json).toMatchObject({ clusterBootImageOcpVersion: "4.22.1", freshness: { stale: true, ageSeconds: 41.4, maxAgeSeconds: 15, heard: true } });
    } finally {
      freshness = FRESH;
    }
  });
  it("an empty plan says why", () => {
    expect(formatPreview([])).toMatch(/nothing would be patched/);
  });
});
