// A preview over the aggregator's view: nodes and pool membership from the status view, the
// MachineConfigs and the effective rules from the feed. Pure.
import type { MachineConfigState, NodePreview } from "@lockstep/contracts";
import type { EffectiveRules } from "@lockstep/disruption";
import type { StatusView } from "../view/status-view.js";
import { type PreviewTarget, previewConfigChange } from "./preview.js";

export function previewOnView(
  view: StatusView,
  machineConfigs: ReadonlyMap<string, MachineConfigState>,
  rules: EffectiveRules,
  target: PreviewTarget,
  machineConfig: string,
): NodePreview[] {
  return previewConfigChange(
    {
      node: (n) => view.nodeState(n),
      poolNodes: (p) => (view.poolSummary(p) ? view.poolNodeNames(p) : undefined),
      poolOf: (n) => view.nodeRecord(n)?.record.pool ?? "",
      machineConfig: (n) => machineConfigs.get(n),
      rules,
    },
    target,
    machineConfig,
  );
}
