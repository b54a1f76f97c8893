// BootImageService over gRPC: Preview (the plan, nothing written) and GetStatus (the last pass;
// while stale no MachineSet is patched and the status is held), each with the view's freshness.
import { status as GrpcStatus, type ServerUnaryCall, type sendUnaryData } from "@grpc/grpc-js";
import type { BootImageServiceServer, GetStatusRequest, GetStatusResponse, PreviewRequest, PreviewResponse } from "@lockstep/contracts";
import type { Freshness } from "@lockstep/runtime";
import { freshnessToProto } from "@lockstep/skeleton";
import type { Logger } from "pino";
import type { BootImageUpdater } from "../updater/updater.js";

function answer<Req, Res>(updater: BootImageUpdater, logger: Logger, method: string, fn: () => Res) {
  return (_call: ServerUnaryCall<Req, Res>, callback: sendUnaryData<Res>) => {
    if (!updater.isSynced) {
      callback({ code: GrpcStatus.UNAVAILABLE, details: "the state plane is not synced yet; retry shortly" });
      return;
    }
    try {
      callback(null, fn());
    } catch (err) {
      logger.error({ err, method }, "boot image request failed");
      callback({ code: GrpcStatus.INTERNAL, details: err instanceof Error ? err.message : String(err) });
    }
  };
}

export function bootImageService(updater: BootImageUpdater, logger: Logger, freshness: () => Freshness | undefined = () => undefined): BootImageServiceServer {
  return {
    preview: answer<PreviewRequest, PreviewResponse>(updater, logger, "Preview", () => {
      const f = freshness();
      return { plans: updater.preview(), freshness: f ? freshnessToProto(f) : undefined };
    }),
    getStatus: answer<GetStatusRequest, GetStatusResponse>(updater, logger, "GetStatus", () => {
      const f = freshness();
      return { status: updater.status(), freshness: f ? freshnessToProto(f) : undefined };
    }),
  };
}
