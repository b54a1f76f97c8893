// gRPC clients of the four query services, with promise calls.
import * as grpc from "@grpc/grpc-js";
import {
  BootImageServiceClient,
  leanClient,
  LeaseServiceClient,
  SkewServiceClient,
  unaryCall,
  UpdateStatusServiceClient,
  type UnaryMethod,
} from "@lockstep/contracts";
import type { RunningSystem } from "@lockstep/launcher";

export class Clients {
  readonly lease: LeaseServiceClient;
  readonly skew: SkewServiceClient;
  readonly status: UpdateStatusServiceClient;
  readonly bootimage: BootImageServiceClient;

  constructor(system: RunningSystem) {
    const insecure = grpc.credentials.createInsecure();
    this.lease = new LeaseServiceClient(system.grpcAddress("lease-coordinator"), insecure);
    this.skew = new SkewServiceClient(system.grpcAddress("skew-enforcer"), insecure);
    this.status = new (leanClient(UpdateStatusServiceClient))(system.grpcAddress("status-aggregator"), insecure);
    this.bootimage = new BootImageServiceClient(system.grpcAddress("bootimage-updater"), insecure);
  }

  call<Req, Res>(client: grpc.Client, method: UnaryMethod<Req, Res>, req: Req): Promise<Res> {
    return unaryCall(client, method, req, { deadlineMs: 10_000 });
  }

  close(): void {
    for (const c of [this.lease, this.skew, this.status, this.bootimage]) c.close();
  }
}
