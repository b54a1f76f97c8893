import * as grpc from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SkewServiceClient, SkewServiceService, type SkewServiceServer } from "./gen/lockstep/skew/v1/skew.js";
import { unaryCall } from "./grpc-call.js";

let server: grpc.Server;
let client: SkewServiceClient;

beforeAll(async () => {
  server = new grpc.Server();
  const impl: Partial<SkewServiceServer> = {
    checkUpgrade: (call, cb) =>
      call.request.targetVersion === "bad"
        ? cb({ code: grpc.status.INVALID_ARGUMENT, details: "invalid version" })
        : cb(null, { allowed: true, kind: "ZStream", reasons: [], message: `ok ${call.request.targetVersion}`, forced: false, warnings: [] }),
  };
  server.addService(SkewServiceService, impl as SkewServiceServer);
  const port = await new Promise<number>((res, rej) => server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (e, p) => (e ? rej(e) : res(p))));
  client = new SkewServiceClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
});

afterAll(() => {
  client.close();
  server.forceShutdown();
});

describe("unaryCall", () => {
  it("resolves with the typed response", async () => {
    const res = await unaryCall(client, client.checkUpgrade, { targetVersion: "4.16.3", force: false }, { deadlineMs: 5_000 });
    expect(res).toMatchObject({ allowed: true, message: "ok 4.16.3" });
  });

  it("rejects with the server's status", async () => {
    await expect(unaryCall(client, client.checkUpgrade, { targetVersion: "bad", force: false })).rejects.toMatchObject({ code: grpc.status.INVALID_ARGUMENT, details: "invalid version" });
  });
});
