import { MachineConfigState } from "@lockstep/contracts";
import { normalizeMachineConfig as normalizeIgnition } from "@lockstep/disruption";
import { MalformedObjectError, meta, MCO, requireName, str, strMap, type Obj } from "./common.js";

/** The release version and what the disruption engine compares (one normaliser, shared with it). */
export function normalizeMachineConfig(o: Obj): MachineConfigState {
  const name = requireName("MachineConfig", o);
  let content;
  try {
    content = normalizeIgnition(o);
  } catch (err) {
    throw new MalformedObjectError("MachineConfig", name, err instanceof Error ? err.message : String(err));
  }
  const m = meta(o);
  const owner = Array.isArray(m.ownerReferences) ? (m.ownerReferences as Obj[]).find((r) => r?.kind === "MachineConfigPool") : undefined;
  // fromPartial keeps only the proto's fields (the engine's extra digests stay out of the snapshot).
  return MachineConfigState.fromPartial({
    ...content,
    name,
    uid: str(m.uid),
    labels: strMap(m.labels),
    releaseImageVersion: str(m.annotations?.[MCO + "release-image-version"]),
    generatedByControllerVersion: str(m.annotations?.[MCO + "generated-by-controller-version"]),
    ownerPool: str(owner?.name),
  });
}
