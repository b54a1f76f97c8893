import type { PoolState } from "@lockstep/contracts";
import { conditions, int, int64, intOrString, labelSelector, meta, MCO, requireName, str, strMap, type Obj } from "./common.js";

export function normalizePool(o: Obj): PoolState {
  const name = requireName("MachineConfigPool", o);
  const m = meta(o);
  const spec = (o.spec ?? {}) as Obj;
  const status = (o.status ?? {}) as Obj;
  const labels = strMap(m.labels);
  return {
    name,
    uid: str(m.uid),
    generation: int64(m.generation),
    labels,
    nodeSelector: labelSelector(spec.nodeSelector),
    nodeSelectorPresent: spec.nodeSelector !== undefined && spec.nodeSelector !== null,
    paused: spec.paused === true,
    maxUnavailable: intOrString(spec.maxUnavailable),
    targetConfig: str(spec.configuration?.name),
    currentConfig: str(status.configuration?.name),
    counters: {
      machineCount: int(status.machineCount),
      updatedMachineCount: int(status.updatedMachineCount),
      readyMachineCount: int(status.readyMachineCount),
      unavailableMachineCount: int(status.unavailableMachineCount),
      degradedMachineCount: int(status.degradedMachineCount),
    },
    conditions: conditions(status.conditions),
    observedGeneration: int64(status.observedGeneration),
    newestImageEquivalentConfig: str(m.annotations?.[MCO + "newestImageEquivalentConfig"]),
    layered: (MCO + "layering-enabled") in labels,
  };
}
