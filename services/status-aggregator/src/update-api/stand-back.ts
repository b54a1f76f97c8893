// Whose API is it? Lockstep writes the Update Status API only through CRDs it shipped itself. Where
// the CRDs come from elsewhere (OpenShift's cluster-version operator installs them with the
// UpgradeStatus feature gate, and its controller produces the objects), Lockstep stands back and
// writes nothing, so two producers never fight over the same objects. Pure.
import { CRD_OWNER, CRD_OWNER_ANNOTATION, INSIGHT_KINDS, PLURALS, UPDATE_GROUP } from "@lockstep/contracts";

export type ApiMode = "writing" | "standing-back" | "crds-missing";

export interface ModeDecision {
  mode: ApiMode;
  /** Why, for the log and `lockstep status`: the CRDs concerned. */
  detail: string;
}

export const crdName = (plural: string): string => `${plural}.${UPDATE_GROUP}`;
export const CRD_NAMES = INSIGHT_KINDS.map((k) => crdName(PLURALS[k]));

type Crd = { metadata?: { annotations?: Record<string, string> | null } } | undefined;

/** `crds`: each CRD name with the object read (undefined when it does not exist). */
export function decideMode(crds: ReadonlyArray<{ name: string; crd: Crd }>): ModeDecision {
  const foreign = crds.filter((c) => c.crd && c.crd.metadata?.annotations?.[CRD_OWNER_ANNOTATION] !== CRD_OWNER);
  if (foreign.length > 0) {
    const featureSet = foreign[0]!.crd!.metadata?.annotations?.["release.openshift.io/feature-set"];
    return {
      mode: "standing-back",
      detail: `${foreign.map((c) => c.name).join(", ")} not installed by Lockstep${featureSet ? ` (OpenShift feature set ${featureSet})` : ""}: the cluster's own controller owns the Update Status API`,
    };
  }
  const missing = crds.filter((c) => !c.crd);
  if (missing.length > 0) return { mode: "crds-missing", detail: `${missing.map((c) => c.name).join(", ")} not installed (the chart's crds/ folder installs them)` };
  return { mode: "writing", detail: "Lockstep's CRDs are installed" };
}
