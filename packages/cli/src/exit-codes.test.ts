import { Metadata, status, type ServiceError } from "@grpc/grpc-js";
import { describe, expect, it } from "vitest";
import { EXIT, grpcFailure } from "./exit-codes.js";

const err = (code: status, details: string): ServiceError => Object.assign(new Error(details), { code, details, metadata: new Metadata() });

describe("grpcFailure", () => {
  it.each([
    [status.UNAVAILABLE, EXIT.UNREACHABLE, "cannot reach the lease-coordinator at 127.0.0.1:9091"],
    [status.DEADLINE_EXCEEDED, EXIT.UNREACHABLE, "cannot reach"],
    [status.UNAUTHENTICATED, EXIT.NOT_ALLOWED, "did not accept your credentials"],
    [status.PERMISSION_DENIED, EXIT.NOT_ALLOWED, "not allowed: "],
    [status.FAILED_PRECONDITION, EXIT.REFUSED, "refused: "],
    [status.INVALID_ARGUMENT, EXIT.USAGE, "lease-coordinator at 127.0.0.1:9091: the message"],
    [status.INTERNAL, EXIT.FAILED, "failed: the message"],
  ])("maps gRPC code %i to exit %i", (code, exit, text) => {
    const e = grpcFailure(err(code, "the message"), "lease-coordinator", "127.0.0.1:9091");
    expect(e.exitCode).toBe(exit);
    expect(e.message).toContain(text);
    expect(e.message).toContain("the message");
  });

  it("drops grpc-js's empty resolution note", () => {
    const e = grpcFailure(err(status.UNAVAILABLE, "No connection established. Last error: Error: connect ECONNREFUSED 127.0.0.1:1. Resolution note: "), "lease-coordinator", "127.0.0.1:1");
    expect(e.message).toBe("cannot reach the lease-coordinator at 127.0.0.1:1: No connection established. Last error: Error: connect ECONNREFUSED 127.0.0.1:1.");
  });

  it("gives every kind of outcome its own code", () => {
    expect(new Set(Object.values(EXIT)).size).toBe(Object.values(EXIT).length);
  });
});
