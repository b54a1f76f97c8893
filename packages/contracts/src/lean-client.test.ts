import * as grpc from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { UpdateStatusServiceClient, UpdateStatusServiceService, type NodeInsight, type UpdateStatusServiceServer } from "./gen/lockstep/status/v1/status.js";
import { unaryCall } from "./grpc-call.js";
import { leanClient } from "./lean-client.js";

const at = new Date("2026-01-01T10:00:00Z");
const nodes: NodeInsight[] = Array.from({ length: 500 }, (_, i) => ({
  name: `worker-${i}`,
  pool: i % 2 ? "worker" : "infra-ü",
  scopeType: "WorkerPool",
  version: "4.16.1",
  estimatedToComplete: i % 3 ? "10m0s" : "",
  estimatedToCompletePresent: i % 3 !== 0,
  message: i === 7 ? "x".repeat(120) : "",
  conditions: [{ type: "Updating", status: "True", reason: "Draining", message: "", lastTransitionTime: new Date(at.getTime() + i * 1000) }],
}));

let server: grpc.Server;
let address: string;

beforeAll(async () => {
  server = new grpc.Server();
  const impl: Partial<UpdateStatusServiceServer> = {
    getUpdateStatus: (_call, cb) => cb(null, { status: { now: at, updating: true, pools: [], nodes, health: [], healthFallback: false, revision: "9007199254740993" } }),
  };
  server.addService(UpdateStatusServiceService, impl as UpdateStatusServiceServer);
  const port = await new Promise<number>((res, rej) => server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (e, p) => (e ? rej(e) : res(p))));
  address = `127.0.0.1:${port}`;
});

afterAll(() => server.forceShutdown());

describe("leanClient", () => {
  it("answers exactly what the generated client answers, over a real channel", async () => {
    const plain = new UpdateStatusServiceClient(address, grpc.credentials.createInsecure());
    const Lean = leanClient(UpdateStatusServiceClient);
    const lean = new Lean(address, grpc.credentials.createInsecure());
    try {
      const a = await unaryCall(plain, plain.getUpdateStatus, { omitNodes: false });
      const b = await unaryCall(lean, lean.getUpdateStatus, { omitNodes: false });
      expect(b.status?.nodes).toHaveLength(500);
      expect(b).toEqual(a);
      expect(b.status?.nodes[7]?.message).toBe("x".repeat(120));
    } finally {
      plain.close();
      lean.close();
    }
  });

  it("is one class per generated client", () => {
    expect(leanClient(UpdateStatusServiceClient)).toBe(leanClient(UpdateStatusServiceClient));
    expect(leanClient(UpdateStatusServiceClient).serviceName).toBe("lockstep.status.v1.UpdateStatusService");
  });
});
