// Conversions between the engine's types and the protobuf contracts (state plane and DisruptionService).
import type {
  Action as ProtoAction,
  Decision as ProtoDecision,
  EffectiveRule as ProtoEffectiveRule,
  NodeDisruptionPolicyState,
  PolicyAction,
} from "@lockstep/contracts";
import type { NdpDecision } from "./engine.js";
import { DEFAULT_POLICY_LABEL, POLICY_API_VERSION, POLICY_KIND, type EffectiveRules, type NdpAction } from "./types.js";

export function actionToProto(a: NdpAction): ProtoAction {
  return { type: a.type, serviceName: a.reload?.serviceName ?? a.restart?.serviceName ?? "" };
}

/** A flattened {type, serviceName} action in the raw object shape (reload/restart sub-objects). */
export function actionFromProto(a: PolicyAction | ProtoAction): Record<string, unknown> {
  if (a.type === "Reload") return { type: a.type, reload: { serviceName: a.serviceName } };
  if (a.type === "Restart") return { type: a.type, restart: { serviceName: a.serviceName } };
  return { type: a.type };
}

/**
 * Rebuilds the Kubernetes object from a state-plane snapshot, so it goes through the same validation
 * and merge as objects read from YAML.
 */
export function policyObjectFromState(s: NodeDisruptionPolicyState): Record<string, unknown> {
  const spec: Record<string, unknown> = {
    files: s.files.map((f) => ({ path: f.path, actions: f.actions.map(actionFromProto) })),
    units: s.units.map((u) => ({ name: u.name, actions: u.actions.map(actionFromProto) })),
  };
  if (s.sshkeyPresent && s.sshkey) spec["sshkey"] = { actions: s.sshkey.actions.map(actionFromProto) };
  const metadata: Record<string, unknown> = { name: s.name, uid: s.uid, generation: Number(s.generation) };
  if (s.default) metadata["labels"] = { [DEFAULT_POLICY_LABEL]: "true" };
  return { apiVersion: POLICY_API_VERSION, kind: POLICY_KIND, metadata, spec };
}

export function decisionToProto(d: NdpDecision, unreconcilable = ""): ProtoDecision {
  return {
    actions: d.actions.map(actionToProto),
    drain: d.drain,
    reboot: d.reboot,
    trace: d.trace.map((t) => ({
      kind: t.kind,
      key: t.key,
      policy: t.source?.policy ?? "",
      rule: t.source ? (t.matchedPath !== undefined ? `${t.source.rule} (${t.matchedPath})` : t.source.rule) : "",
      actions: t.actions.map(actionToProto),
    })),
    unreconcilable,
  };
}

/** The effective rules as ListEffectivePolicies reports them, in evaluation order. */
export function effectiveRulesToProto(rules: EffectiveRules): ProtoEffectiveRule[] {
  const out: ProtoEffectiveRule[] = [
    ...rules.files.map((f) => ({ kind: "file", key: f.path, actions: f.actions.map(actionToProto), policy: f.source.policy, default: f.source.default })),
    ...rules.units.map((u) => ({ kind: "unit", key: u.name, actions: u.actions.map(actionToProto), policy: u.source.policy, default: u.source.default })),
  ];
  if (rules.sshkey)
    out.push({ kind: "sshkey", key: "sshkey", actions: rules.sshkey.actions.map(actionToProto), policy: rules.sshkey.source.policy, default: rules.sshkey.source.default });
  return out;
}
