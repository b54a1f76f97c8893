// The `lockstep` command's exit codes, one per kind of outcome, so scripts can tell a refusal from
// a typo or an unreachable server:
//
// | code | meaning |
// |---|---|
// | 0 | done |
// | 1 | failed: a server fault or anything unexpected |
// | 2 | usage: unknown command or option, bad argument |
// | 3 | refused: a lease denied, a release or renew refused, an upgrade blocked, a `status` answered from a stale view |
// | 4 | unreachable: the server did not answer (down, wrong address, timed out, still starting) |
// | 5 | not allowed: not authenticated, or not authorized for that operation |
import type { ServiceError } from "@grpc/grpc-js";

/**
 * gRPC status codes (grpc.io "Status codes", fixed by the protocol), here rather than grpc-js's
 * `status` enum so that every command, `--help` included, can load this module without loading grpc-js.
 */
const GrpcStatus = {
  DEADLINE_EXCEEDED: 4,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  OUT_OF_RANGE: 11,
  UNAVAILABLE: 14,
  UNAUTHENTICATED: 16,
  INVALID_ARGUMENT: 3,
} as const;

export const EXIT = { OK: 0, FAILED: 1, USAGE: 2, REFUSED: 3, UNREACHABLE: 4, NOT_ALLOWED: 5 } as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** An error that ends the command with a given exit code. */
export class CliError extends Error {
  constructor(
    readonly exitCode: ExitCode,
    message: string,
  ) {
    super(message);
    this.name = "CliError";
  }
}

/**
 * A gRPC failure as the CliError a user should see: what `server` (named `who`) said, and its exit
 * code; `hint` says how to point the CLI elsewhere when the server cannot be reached.
 */
export function grpcFailure(err: ServiceError, who: string, server: string, hint?: string): CliError {
  // grpc-js ends a connection failure with an empty "Resolution note:" when it has none.
  const said = (err.details || err.message).replace(/\s*Resolution note:\s*$/, "");
  switch (err.code) {
    case GrpcStatus.UNAVAILABLE:
    case GrpcStatus.DEADLINE_EXCEEDED:
      return new CliError(EXIT.UNREACHABLE, `cannot reach the ${who} at ${server}: ${said}${hint ? ` ${hint}` : ""}`);
    case GrpcStatus.UNAUTHENTICATED:
      return new CliError(EXIT.NOT_ALLOWED, `the ${who} at ${server} did not accept your credentials: ${said} (the CLI sends the token of your kubeconfig's current user, or --token / $LOCKSTEP_TOKEN)`);
    case GrpcStatus.PERMISSION_DENIED:
      return new CliError(EXIT.NOT_ALLOWED, `not allowed: ${said}`);
    case GrpcStatus.FAILED_PRECONDITION:
      return new CliError(EXIT.REFUSED, `refused: ${said}`);
    case GrpcStatus.INVALID_ARGUMENT:
    case GrpcStatus.OUT_OF_RANGE:
      return new CliError(EXIT.USAGE, `${who} at ${server}: ${said}`);
    case GrpcStatus.RESOURCE_EXHAUSTED:
      return new CliError(EXIT.USAGE, `the ${who} at ${server} refused the request as too large: ${said}`);
    default:
      return new CliError(EXIT.FAILED, `the ${who} at ${server} failed: ${said}`);
  }
}
