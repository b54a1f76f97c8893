// DisruptionService over the aggregator's state-plane view: previews and the effective rules.
import { status as Status } from "@grpc/grpc-js";
import type { DisruptionServiceServer } from "@lockstep/contracts";
import type { Logger } from "pino";
import type { Aggregator } from "../aggregator/aggregator.js";
import { PreviewError, type PreviewTarget } from "../preview/preview.js";
import { grpcError } from "./update-status-service.js";

export function disruptionService(agg: Aggregator, logger: Logger): DisruptionServiceServer {
  return {
    previewConfigChange(call, callback) {
      const req = call.request;
      let target: PreviewTarget;
      if (req.target?.$case === "pool") target = { pool: req.target.value };
      else if (req.target?.$case === "node") target = { node: req.target.value };
      else return callback(grpcError(Status.INVALID_ARGUMENT, "set exactly one target: pool or node"));
      if (!agg.synced) return callback(grpcError(Status.UNAVAILABLE, "the state view is not synced yet; retry shortly"));
      try {
        callback(null, { nodes: agg.preview(target, req.machineConfig), freshness: agg.current()?.freshness });
      } catch (err) {
        if (err instanceof PreviewError) return callback(grpcError(Status.INVALID_ARGUMENT, err.message));
        logger.error({ err }, "preview failed");
        callback(grpcError(Status.INTERNAL, "internal error computing the preview"));
      }
    },
    listEffectivePolicies(_call, callback) {
      if (!agg.synced) return callback(grpcError(Status.UNAVAILABLE, "the state view is not synced yet; retry shortly"));
      try {
        callback(null, { ...agg.effectivePolicies(), freshness: agg.current()?.freshness });
      } catch (err) {
        logger.error({ err }, "listing effective policies failed");
        callback(grpcError(Status.INTERNAL, "internal error resolving the policies"));
      }
    },
  };
}
