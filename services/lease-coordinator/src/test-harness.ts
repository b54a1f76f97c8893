// Integration world: kube-sim over HTTP, a real nats-server, the watcher in-process, N coordinator
// replicas in-process each behind its own real gRPC server, and a durable consumer of every event.
import * as grpc from "@grpc/grpc-js";
import { CoordinationV1Api, CoreV1Api, CustomObjectsApi, type KubeConfig } from "@kubernetes/client-node";
import { closeBus, connectBus, consumeEvents, ensureEventStream } from "@lockstep/bus";
import {
  LeaseServiceClient,
  LeaseServiceService,
  OperationType,
  type AcquireRequest,
  type AcquireResponse,
  type DecodedEvent,
} from "@lockstep/contracts";
import { kubeConfigForUrl } from "@lockstep/kube/client-node";
import { startKubeSim, type KubeSim, type KubeSimOptions } from "@lockstep/kube-sim";
import { createMetricsRegistry, silentLogger, startGrpcServer, type GrpcServerHandle, type GrpcTlsOptions } from "@lockstep/runtime";
import { TEST_WATCHER_OPTIONS, TestStack, waitFor, type NatsServer } from "@lockstep/testing";
import { watcherRunnable } from "@lockstep/watcher";
import { LeaseAuth } from "./auth/lease-auth.js";
import { validatePolicy, type PolicyConfig } from "@lockstep/lease-policy";
import { createLeaseCoordinator, type LeaseCoordinator, type LeaseCoordinatorOptions } from "./runnable.js";
import type { Coordinator } from "./coordinator/coordinator.js";
import type { LeaseIndex } from "./store/lease-index.js";

export const NS = "lockstep-leases";

export interface Replica {
  address: string;
  client: LeaseServiceClient;
  coordinator: Coordinator;
  index: LeaseIndex;
  /** The replica as createLeaseCoordinator made it (its lease view for the webhook). */
  lc: LeaseCoordinator;
  /** Its metrics registry (what /metrics would serve). */
  registry: ReturnType<typeof createMetricsRegistry>;
  stop(): Promise<void>;
  /**
   * As if its process died: its NATS connection closes, then its gRPC connections drop at once
   * (a graceful stop lets calls in flight finish on the old connection; a dead pod does not).
   */
  crash(): Promise<void>;
}

export interface WorldOptions {
  nodes: Array<string | { name: string; pool?: string; labels?: Record<string, string> }>;
  /** MachineConfigPools: name → maxUnavailable. */
  pools?: Record<string, string>;
  replicas?: number;
  policy?: Partial<PolicyConfig>;
  /** The watcher's heartbeat interval and the coordinators' STATE_MAX_AGE (defaults 5 s / 15 s). */
  heartbeatIntervalMs?: number;
  stateMaxAgeMs?: number;
  /** The replicas' caller authentication; default none (these tests are about the policy). */
  auth?: (sim: KubeSim) => LeaseAuth;
  /** kube-sim's options (users, an admin token the world then uses itself). */
  sim?: Omit<KubeSimOptions, "crds">;
  /** TLS of the replicas' gRPC servers, and the credentials of the world's clients. */
  grpcTls?: GrpcTlsOptions;
  clientCredentials?: grpc.ChannelCredentials;
  /** The replicas' lease adapters (off by default). */
  adapters?: LeaseCoordinatorOptions["adapters"];
  /** Budget statuses evaluated again without changes; default 1 s. */
  budgetResyncMs?: number;
  /** Replica i's leader gate (its leader-only controllers); none: it leads. */
  leader?(replica: number): LeaseCoordinatorOptions["leader"];
}

export interface World {
  sim: KubeSim;
  nats: NatsServer;
  kc: KubeConfig;
  core: CoreV1Api;
  coord: CoordinationV1Api;
  custom: CustomObjectsApi;
  replicas: Replica[];
  events: Array<{ subject: string; message: any }>;
  addReplica(): Promise<Replica>;
  /** Stops the in-process watcher (as if killed: no more writes, no heartbeat). */
  stopWatcher(): Promise<void>;
  /** Starts it again after stopWatcher. */
  startWatcher(): void;
  stop(): Promise<void>;
}

export function nodeUid(world: World, name: string): Promise<string> {
  return world.core.readNode({ name }).then((n) => n.metadata!.uid!);
}

export async function startWorld(o: WorldOptions): Promise<World> {
  const stack = new TestStack();
  const sim = stack.add(await startKubeSim({ ...o.sim, crds: "openshift" }));
  const nats = await stack.nats();
  const kc = kubeConfigForUrl(sim.url, o.sim?.token);
  const core = kc.makeApiClient(CoreV1Api);
  const custom = kc.makeApiClient(CustomObjectsApi);
  for (const n of o.nodes) {
    const spec = typeof n === "string" ? { name: n } : n;
    await core.createNode({
      body: {
        metadata: { name: spec.name, labels: { [`node-role.kubernetes.io/${spec.pool ?? "worker"}`]: "", ...(spec.labels ?? {}) } },
        status: { conditions: [{ type: "Ready", status: "True", reason: "KubeletReady", message: "ready" }] },
      },
    });
  }
  for (const [name, maxUnavailable] of Object.entries(o.pools ?? {})) {
    await custom.createClusterCustomObject({
      group: "machineconfiguration.openshift.io",
      version: "v1",
      plural: "machineconfigpools",
      body: {
        apiVersion: "machineconfiguration.openshift.io/v1",
        kind: "MachineConfigPool",
        metadata: { name },
        spec: { maxUnavailable, nodeSelector: { matchLabels: { [`node-role.kubernetes.io/${name}`]: "" } } },
      },
    });
  }
  let watcher: { abort: AbortController; running: Promise<unknown> } | undefined;
  const startWatcher = () => {
    const abort = new AbortController();
    const running = stack.run(
      watcherRunnable({ kc, bus: { servers: nats.url }, logger: silentLogger(), ...TEST_WATCHER_OPTIONS, leaseNamespaces: [NS, "medik8s-leases"], heartbeatIntervalMs: o.heartbeatIntervalMs }),
      abort.signal,
    );
    watcher = { abort, running };
  };
  startWatcher();
  const { policy, errors } = validatePolicy({ ...o.policy, namespace: NS });
  if (errors.length) throw new Error(errors.join("; "));

  const replicas: Replica[] = [];
  const addReplica = async (): Promise<Replica> => {
    const own = new AbortController();
    let started: { coordinator: Coordinator; index: LeaseIndex } | undefined;
    const registry = createMetricsRegistry({ defaultMetrics: false });
    const lc = createLeaseCoordinator({
      registry,
      kc: kubeConfigForUrl(sim.url, o.sim?.token),
      bus: { servers: nats.url },
      policy,
      auth: o.auth?.(sim) ?? new LeaseAuth({ mode: "none", logger: silentLogger() }),
      logger: silentLogger(),
      sweepIntervalMs: 200,
      stateMaxAgeMs: o.stateMaxAgeMs,
      budgetResyncMs: o.budgetResyncMs ?? 1_000,
      onStarted: (coordinator, index) => (started = { coordinator, index }),
      adapters: o.adapters,
      leader: o.leader?.(replicas.length),
      replica: `replica-${replicas.length}`,
    });
    const server: GrpcServerHandle = await startGrpcServer({ port: 0, host: "127.0.0.1", services: [[LeaseServiceService, lc.service]], tls: o.grpcTls });
    const running = stack.run(lc.runnable, own.signal);
    await waitFor(() => started, { timeoutMs: 30_000, what: "coordinator started" });
    const address = `127.0.0.1:${server.port}`;
    const client = new LeaseServiceClient(address, o.clientCredentials ?? grpc.credentials.createInsecure());
    stack.defer(() => client.close());
    const replica: Replica = {
      address,
      client,
      coordinator: started!.coordinator,
      index: started!.index,
      lc,
      registry,
      async stop() {
        client.close();
        own.abort();
        await running;
        await server.stop(100);
      },
      async crash() {
        client.close();
        own.abort();
        await running;
        // grpc-js's forceShutdown destroys only the sessions channelz tracks (none with channelz
        // off), so the connections are cut here, as a dead process's would be.
        const servers = (server.server as unknown as { http2Servers: Map<unknown, { sessions: Set<{ destroy(): void }> }> }).http2Servers;
        for (const { sessions } of servers.values()) for (const session of sessions) session.destroy();
        server.server.forceShutdown();
      },
    };
    replicas.push(replica);
    return replica;
  };
  for (let i = 0; i < (o.replicas ?? 1); i++) await addReplica();

  const events: World["events"] = [];
  const nc = await connectBus({ servers: nats.url });
  stack.defer(() => closeBus(nc));
  await ensureEventStream(nc);
  stack.run({
    start: (signal) => consumeEvents(nc, { durable: "lease-it", filterSubject: "lockstep.v1.evt.>", signal, handler: (e: DecodedEvent) => void events.push({ subject: e.type.subject, message: e.message }) }),
  });

  return {
    sim,
    nats,
    kc,
    core,
    coord: kc.makeApiClient(CoordinationV1Api),
    custom,
    replicas,
    events,
    addReplica,
    async stopWatcher() {
      watcher?.abort.abort();
      await watcher?.running;
      watcher = undefined;
    },
    startWatcher,
    stop: () => stack.close(),
  };
}

type Unary<Req, Res> = (req: Req, cb: (err: grpc.ServiceError | null, res: Res) => void) => unknown;

/** Promisified unary call. */
export function call<Req, Res>(client: LeaseServiceClient, method: keyof LeaseServiceClient, req: Req): Promise<Res> {
  const fn = (client[method] as unknown as Unary<Req, Res>).bind(client);
  return new Promise((resolve, reject) => fn(req, (err, res) => (err ? reject(err) : resolve(res))));
}

export function acquire(client: LeaseServiceClient, fields: Partial<AcquireRequest> & { node: string; holder: string }): Promise<AcquireResponse> {
  return call(client, "acquire", {
    operation: OperationType.OPERATION_TYPE_UPDATE,
    reason: `${fields.holder} works on ${fields.node}`,
    durationSeconds: 60,
    waitSeconds: 0,
    force: false,
    ...fields,
  });
}

/** The holders of the node Leases in kube-sim, straight from the API server's store. */
export async function holdersInApi(world: World): Promise<Map<string, string>> {
  const list = await world.coord.listNamespacedLease({ namespace: NS });
  const out = new Map<string, string>();
  for (const l of list.items) {
    if (l.metadata?.labels?.["lockstep.io/lease-kind"] === "slot") continue;
    if (l.spec?.holderIdentity) out.set(l.metadata!.name!, l.spec.holderIdentity);
  }
  return out;
}

export function eventsOf(world: World, fact: string): any[] {
  return world.events.filter((e) => e.subject.endsWith(`.${fact}`)).map((e) => e.message);
}

/** The gRPC error a call fails with; throws when it succeeds. */
export async function grpcError(p: Promise<unknown>): Promise<grpc.ServiceError> {
  try {
    await p;
  } catch (err) {
    return err as grpc.ServiceError;
  }
  throw new Error("expected the call to fail");
}
