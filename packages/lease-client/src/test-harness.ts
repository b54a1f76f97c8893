// A real gRPC LeaseService for this package's tests, with scripted answers per test. The real
// lease-coordinator cannot be used here: it depends on this package (a workspace cycle).
import * as grpc from "@grpc/grpc-js";
import {
  LeaseServiceService,
  NodeLease,
  OperationType,
  type AcquireRequest,
  type AcquireResponse,
  type LeaseServiceServer,
  type ReleaseRequest,
  type RenewRequest,
  type RenewResponse,
  type WatchRequest,
  type WatchResponse,
} from "@lockstep/contracts";

type Answer<Res> = Res | Partial<grpc.ServiceError> | Promise<Res | Partial<grpc.ServiceError>>;

export interface Script {
  acquire?(req: AcquireRequest, n: number): Answer<AcquireResponse>;
  renew?(req: RenewRequest, n: number): Answer<RenewResponse>;
  release?(req: ReleaseRequest, n: number): Answer<object>;
  /** Called once per Watch stream; the default keeps it open (see `watches`). */
  watch?(call: grpc.ServerWritableStream<WatchRequest, WatchResponse>): void;
}

export interface FakeCoordinator {
  address: string;
  port: number;
  acquires: AcquireRequest[];
  renews: RenewRequest[];
  releases: ReleaseRequest[];
  /** Every Watch stream opened, open or not. */
  watches: grpc.ServerWritableStream<WatchRequest, WatchResponse>[];
  /** Sends a lease on every open Watch stream. */
  push(lease: NodeLease): void;
  stop(): Promise<void>;
  /** Stops as a replica past its shutdown grace period: calls still open are cancelled (CANCELLED on the client). */
  stopCancelling(): Promise<void>;
}

export function lease(node: string, holder: string, more: Partial<NodeLease> = {}): NodeLease {
  return NodeLease.fromPartial({ node, holder, operation: OperationType.OPERATION_TYPE_UPDATE, durationSeconds: 10, ...more });
}

/** A gRPC status error as a handler passes it to its callback. */
export function status(code: grpc.status, details: string, metadata?: grpc.Metadata): Partial<grpc.ServiceError> {
  return { code, details, metadata: metadata ?? new grpc.Metadata() };
}

const isError = (v: unknown): v is Partial<grpc.ServiceError> => typeof v === "object" && v !== null && "code" in v && typeof (v as { code: unknown }).code === "number";

function unary<Req, Res>(log: Req[], fn: ((req: Req, n: number) => Answer<Res>) | undefined, dflt: (req: Req) => Res): grpc.handleUnaryCall<Req, Res> {
  return (call, cb) => {
    log.push(call.request);
    void Promise.resolve(fn ? fn(call.request, log.length) : dflt(call.request)).then((r) => (isError(r) ? cb(r as grpc.ServiceError) : cb(null, r)));
  };
}

/** Starts the server on a free port (or `port`, to stand in for one that stopped). */
export async function startFakeCoordinator(script: Script = {}, port = 0): Promise<FakeCoordinator> {
  const server = new grpc.Server();
  const acquires: AcquireRequest[] = [];
  const renews: RenewRequest[] = [];
  const releases: ReleaseRequest[] = [];
  const watches: grpc.ServerWritableStream<WatchRequest, WatchResponse>[] = [];
  const unimplemented = (_: unknown, cb: grpc.sendUnaryData<never>) => cb(status(grpc.status.UNIMPLEMENTED, "not in this test") as grpc.ServiceError);
  const impl: LeaseServiceServer = {
    acquire: unary(acquires, script.acquire, (r) => ({ granted: true, lease: lease(r.node, r.holder, { operation: r.operation, durationSeconds: r.durationSeconds }), warnings: [], deniedReason: "", retryAfterSeconds: 0, deniedCode: "" })),
    renew: unary(renews, script.renew, (r) => ({ lease: lease(r.node, r.holder) }) as RenewResponse),
    release: unary(releases, script.release, () => ({})) as LeaseServiceServer["release"],
    watch: (call) => {
      watches.push(call);
      script.watch?.(call);
    },
    get: unimplemented,
    list: unimplemented,
    preflightUpgrade: unimplemented,
    cancelPreemption: unimplemented,
  };
  server.addService(LeaseServiceService, impl);
  const bound = await new Promise<number>((resolve, reject) => server.bindAsync(`127.0.0.1:${port}`, grpc.ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p))));
  const open = () => watches.filter((w) => !w.cancelled && !w.writableEnded);
  return {
    address: `127.0.0.1:${bound}`,
    port: bound,
    acquires,
    renews,
    releases,
    watches,
    push: (l) => {
      for (const w of open()) w.write({ type: "MODIFIED", lease: l });
    },
    // Abrupt, as a killed replica's: the connections are cut (open calls fail UNAVAILABLE on the
    // client). grpc-js's forceShutdown alone cancels them (CANCELLED), as no dead process would.
    stop: async () => {
      const http2 = (server as unknown as { http2Servers: Map<unknown, { sessions: Set<{ destroy(): void }> }> }).http2Servers;
      for (const { sessions } of http2.values()) for (const session of sessions) session.destroy();
      server.forceShutdown();
    },
    stopCancelling: async () => server.forceShutdown(),
  };
}
