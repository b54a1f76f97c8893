// gRPC clients whose responses decode with the LeanReader (see lean-reader.ts). The generated
// deserializers hand their argument straight to `Message.decode`, which takes a reader as well as
// bytes, so wrapping them changes how strings are allocated, never what is decoded.
import { makeGenericClientConstructor, type MethodDefinition, type ServiceDefinition } from "@grpc/grpc-js";
import { InternTable, LeanReader } from "./lean-reader.js";

type AnyMethod = MethodDefinition<unknown, unknown>;

/**
 * The same service definition with every deserializer reading through a LeanReader; the definition
 * owns the intern table its readers share.
 */
export function withLeanDecoding<T extends ServiceDefinition>(definition: T, table = new InternTable()): T {
  const out: Record<string, AnyMethod> = {};
  for (const [name, method] of Object.entries(definition as Record<string, AnyMethod>)) {
    out[name] = {
      ...method,
      requestDeserialize: (bytes: Buffer) => method.requestDeserialize(new LeanReader(bytes, table) as unknown as Buffer),
      responseDeserialize: (bytes: Buffer) => method.responseDeserialize(new LeanReader(bytes, table) as unknown as Buffer),
    };
  }
  return out as T;
}

type GeneratedClient = { service: ServiceDefinition; serviceName: string };
const leanClients = new WeakMap<GeneratedClient, GeneratedClient>();

/**
 * `new (leanClient(UpdateStatusServiceClient))(address, credentials)`: the generated client class with
 * lean response decoding, for callers that read large answers (10,000 node insights).
 */
export function leanClient<C extends GeneratedClient>(generated: C): C {
  let lean = leanClients.get(generated);
  if (lean === undefined) {
    lean = makeGenericClientConstructor(withLeanDecoding(generated.service), generated.serviceName) as unknown as GeneratedClient;
    leanClients.set(generated, lean);
  }
  return lean as C;
}
