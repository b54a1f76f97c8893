// Promise form of a generated grpc-js client method, shared by the CLI, clients and tests.
import { Metadata, type CallOptions, type Client, type ClientUnaryCall, type ServiceError } from "@grpc/grpc-js";

/** The 4-argument overload every generated unary method has. */
export type UnaryMethod<Req, Res> = (
  request: Req,
  metadata: Metadata,
  options: Partial<CallOptions>,
  callback: (error: ServiceError | null, response: Res) => void,
) => ClientUnaryCall;

/** `await unaryCall(client, client.checkUpgrade, { targetVersion: "4.16.0" }, { deadlineMs: 5000 })` */
export function unaryCall<Req, Res>(client: Client, method: UnaryMethod<Req, Res>, request: Req, o: { deadlineMs?: number } = {}): Promise<Res> {
  return new Promise((resolve, reject) => {
    const options: Partial<CallOptions> = o.deadlineMs ? { deadline: Date.now() + o.deadlineMs } : {};
    method.call(client, request, new Metadata(), options, (err, res) => (err ? reject(err) : resolve(res)));
  });
}
