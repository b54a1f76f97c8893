import { join } from "node:path";
import * as grpc from "@grpc/grpc-js";
import { service as healthService } from "grpc-health-check";
import { createTestPki, hasOpenssl, type TestPki } from "@lockstep/testing";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { grpcServiceName, readTlsFiles, startGrpcServer, type GrpcServerHandle } from "./grpc-server.js";

// A hand-written service definition with JSON payloads, so the test needs no generated code.
const json = {
  serialize: (v: unknown) => Buffer.from(JSON.stringify(v)),
  deserialize: (b: Buffer) => JSON.parse(b.toString()) as unknown,
};
const EchoService = {
  echo: {
    path: "/lockstep.test.v1.EchoService/Echo",
    requestStream: false,
    responseStream: false,
    requestSerialize: json.serialize,
    requestDeserialize: json.deserialize,
    responseSerialize: json.serialize,
    responseDeserialize: json.deserialize,
  },
} satisfies grpc.ServiceDefinition;

const echoImpl = {
  echo: (call: grpc.ServerUnaryCall<{ text: string }, unknown>, cb: grpc.sendUnaryData<unknown>) =>
    cb(null, { text: call.request.text.toUpperCase() }),
};

const HealthClient = grpc.makeGenericClientConstructor(healthService as unknown as grpc.ServiceDefinition, "Health");
const EchoClient = grpc.makeGenericClientConstructor(EchoService, "EchoService");

type Unary = (req: unknown, opts: grpc.CallOptions, cb: (err: grpc.ServiceError | null, res: unknown) => void) => void;

function call<T>(client: grpc.Client, method: string, req: unknown): Promise<T> {
  const fn = (client as unknown as Record<string, Unary>)[method]!.bind(client);
  return new Promise((resolve, reject) =>
    fn(req, { deadline: Date.now() + 10_000 }, (err, res) => (err ? reject(err) : resolve(res as T))),
  );
}

const closers: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
});

function track<T extends grpc.Client>(client: T): T {
  closers.push(() => client.close());
  return client;
}

async function serve(opts: Partial<Parameters<typeof startGrpcServer>[0]> = {}): Promise<GrpcServerHandle> {
  const handle = await startGrpcServer({ port: 0, host: "127.0.0.1", services: [[EchoService, echoImpl]], ...opts });
  closers.push(() => handle.stop(100));
  return handle;
}

describe("startGrpcServer", () => {
  it("serves the registered services and the health service, with settable status", async () => {
    const handle = await serve();
    expect(handle.port).toBeGreaterThan(0);
    expect(handle.serviceNames).toEqual(["lockstep.test.v1.EchoService"]);
    const target = `127.0.0.1:${handle.port}`;
    const echo = track(new EchoClient(target, grpc.credentials.createInsecure()));
    const health = track(new HealthClient(target, grpc.credentials.createInsecure()));

    expect(await call(echo, "echo", { text: "hi" })).toEqual({ text: "HI" });
    expect(await call(health, "check", { service: "" })).toEqual({ status: "SERVING" });
    expect(await call(health, "check", { service: "lockstep.test.v1.EchoService" })).toEqual({ status: "SERVING" });

    handle.setServing("lockstep.test.v1.EchoService", false);
    expect(await call(health, "check", { service: "lockstep.test.v1.EchoService" })).toEqual({ status: "NOT_SERVING" });
    expect(await call(health, "check", { service: "" })).toEqual({ status: "SERVING" });

    const err = await call(health, "check", { service: "no.such.Service" }).catch((e: grpc.ServiceError) => e);
    expect((err as grpc.ServiceError).code).toBe(grpc.status.NOT_FOUND);
  });

  it("starts NOT_SERVING when asked and tells watchers when the status changes", async () => {
    const handle = await serve({ initiallyServing: false });
    const health = track(new HealthClient(`127.0.0.1:${handle.port}`, grpc.credentials.createInsecure()));
    const stream = (health as unknown as { watch(req: unknown): grpc.ClientReadableStream<{ status: string }> }).watch({
      service: "",
    });
    const seen: string[] = [];
    const twoUpdates = new Promise<void>((resolve) =>
      stream.on("data", (m: { status: string }) => {
        seen.push(m.status);
        if (seen.length === 1) handle.setAllServing(true);
        if (seen.length === 2) resolve();
      }),
    );
    stream.on("error", () => {}); // cancelled at the end
    await twoUpdates;
    stream.cancel();
    expect(seen).toEqual(["NOT_SERVING", "SERVING"]);
  });

  it("stops: reports NOT_SERVING, then refuses new calls", async () => {
    const handle = await startGrpcServer({ port: 0, host: "127.0.0.1", services: [[EchoService, echoImpl]] });
    const echo = track(new EchoClient(`127.0.0.1:${handle.port}`, grpc.credentials.createInsecure()));
    expect(await call(echo, "echo", { text: "a" })).toEqual({ text: "A" });
    await handle.stop(1000);
    const err = await call(echo, "echo", { text: "b" }).catch((e: grpc.ServiceError) => e);
    expect((err as grpc.ServiceError).code).toBe(grpc.status.UNAVAILABLE);
  });

  it("names services from their definitions", () => {
    expect(grpcServiceName(EchoService)).toBe("lockstep.test.v1.EchoService");
    expect(() => grpcServiceName({})).toThrow(/no methods/);
  });
});

describe.skipIf(!hasOpenssl())("startGrpcServer with TLS", () => {
  let pki: TestPki;
  const pem = (name: string) => pki.pem(name);
  const dir = () => pki.dir;

  beforeAll(() => {
    pki = createTestPki();
  });
  afterAll(() => pki.remove());

  it("serves over TLS to a client that trusts the CA", async () => {
    const tls = readTlsFiles({ GRPC_TLS_CERT: join(dir(), "server.crt"), GRPC_TLS_KEY: join(dir(), "server.key") });
    expect(tls?.requireClientCert).toBe(false);
    const handle = await serve({ tls });
    const health = track(new HealthClient(`127.0.0.1:${handle.port}`, grpc.credentials.createSsl(pem("ca.crt"))));
    expect(await call(health, "check", { service: "" })).toEqual({ status: "SERVING" });
    // A plaintext client cannot talk to it.
    const plain = track(new HealthClient(`127.0.0.1:${handle.port}`, grpc.credentials.createInsecure()));
    const err = await call(plain, "check", { service: "" }).catch((e: grpc.ServiceError) => e);
    expect((err as grpc.ServiceError).code).toBe(grpc.status.UNAVAILABLE);
  });

  it("with mutual TLS, refuses a client without a certificate and accepts one with", async () => {
    const handle = await serve({
      tls: { cert: pem("server.crt"), key: pem("server.key"), ca: pem("ca.crt"), requireClientCert: true },
    });
    const target = `127.0.0.1:${handle.port}`;
    const anonymous = track(new HealthClient(target, grpc.credentials.createSsl(pem("ca.crt"))));
    const err = await call(anonymous, "check", { service: "" }).catch((e: grpc.ServiceError) => e);
    expect((err as grpc.ServiceError).code).toBe(grpc.status.UNAVAILABLE);

    const withCert = track(
      new HealthClient(target, grpc.credentials.createSsl(pem("ca.crt"), pem("client.key"), pem("client.crt"))),
    );
    expect(await call(withCert, "check", { service: "" })).toEqual({ status: "SERVING" });
  });

  it("names the variable when a TLS file cannot be read", () => {
    expect(() => readTlsFiles({ GRPC_TLS_CERT: join(dir(), "missing.crt"), GRPC_TLS_KEY: join(dir(), "server.key") })).toThrow(
      /^GRPC_TLS_CERT: cannot read .*missing\.crt/,
    );
    expect(readTlsFiles({})).toBeUndefined();
  });

  it("refuses mutual TLS without a CA", async () => {
    await expect(
      startGrpcServer({ port: 0, services: [], tls: { cert: pem("server.crt"), key: pem("server.key"), requireClientCert: true } }),
    ).rejects.toThrow(/needs a CA/);
  });
});
