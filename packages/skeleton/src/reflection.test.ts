// gRPC server reflection on every service's server: a generic client (what grpcurl does) lists the
// services a process serves and fetches their descriptors, with no .proto file of its own — the
// reflection client below knows only the reflection protocol, shipped with @grpc/reflection.
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import * as grpc from "@grpc/grpc-js";
import { loadSync } from "@grpc/proto-loader";
import { UpdateStatusServiceService } from "@lockstep/contracts";
import { env, loadConfig, run, serviceConfigSchema } from "@lockstep/runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startService } from "./run-service.js";

const require = createRequire(import.meta.url);
const reflectionProto = join(dirname(require.resolve("@grpc/reflection/package.json")), "build", "proto", "grpc", "reflection", "v1", "reflection.proto");

interface ReflectionAnswer {
  listServicesResponse?: { service: Array<{ name: string }> };
  fileDescriptorResponse?: { fileDescriptorProto: Buffer[] };
  errorResponse?: { errorCode: number; errorMessage: string };
}

/** One request on the bidirectional ServerReflectionInfo stream. */
function ask(address: string, request: Record<string, string>): Promise<ReflectionAnswer> {
  const pkg = grpc.loadPackageDefinition(loadSync(reflectionProto, { keepCase: false })) as any;
  const client = new pkg.grpc.reflection.v1.ServerReflection(address, grpc.credentials.createInsecure());
  return new Promise((resolve, reject) => {
    const call = client.serverReflectionInfo();
    call.on("data", (answer: ReflectionAnswer) => {
      resolve(answer);
      call.end();
    });
    call.on("error", reject);
    call.on("end", () => client.close());
    call.write(request);
  });
}

const schema = serviceConfigSchema({ X: env.string().default("") });
let address: string;
const abort = new AbortController();
let running: Promise<void>;

beforeAll(async () => {
  const config = loadConfig(schema, { NATS_URL: "nats://127.0.0.1:4222", HTTP_PORT: "0", GRPC_PORT: "0", LOG_LEVEL: "silent", LEADER_ELECTION: "false" });
  const started = await startService({ name: "reflected", config: schema, wire: () => ({ runnables: [], grpc: [[UpdateStatusServiceService, {}]] }) }, config);
  address = `127.0.0.1:${started.grpc.port}`;
  running = run(started.runnables, { signal: abort.signal });
});
afterAll(async () => {
  abort.abort();
  await running;
});

describe("gRPC server reflection", () => {
  it("lists the services this process serves", async () => {
    const answer = await ask(address, { listServices: "" });
    expect(answer.listServicesResponse?.service.map((s) => s.name)).toEqual(["lockstep.status.v1.UpdateStatusService"]);
  });

  it("gives the descriptor of a method's file, so a client can call it without the .proto", async () => {
    const answer = await ask(address, { fileContainingSymbol: "lockstep.status.v1.UpdateStatusService" });
    const files = answer.fileDescriptorResponse?.fileDescriptorProto ?? [];
    expect(files.length).toBeGreaterThan(0);
    // The serialized FileDescriptorProto names its file and the method.
    expect(Buffer.concat(files).toString("latin1")).toContain("lockstep/status/v1/status.proto");
    expect(Buffer.concat(files).toString("latin1")).toContain("GetUpdateStatus");
  });

  it("answers NOT_FOUND for a symbol no file defines", async () => {
    const answer = await ask(address, { fileContainingSymbol: "lockstep.nothing.v1.Nope" });
    expect(answer.errorResponse?.errorCode).toBe(grpc.status.NOT_FOUND);
  });
});
