// The decision engine: (old MachineConfig, new MachineConfig, effective rules) → ordered actions,
// drain, reboot, and a trace of what decided each changed item (mco-behaviors.md §2.6–§2.9).
import { diffMachineConfigs, REBOOT_FIELDS, type ChangedItem, type RebootField } from "./diff.js";
import { sha256Hex, toMachineConfigState, type NormalizedMachineConfig } from "./machine-config.js";
import { closestFileRule, unitRule } from "./match.js";
import { REGISTRIES_CONF_PATH, registriesTextChangeSafety, type RegistriesSafety } from "./registries.js";
import type { EffectiveRules, NdpAction, RuleSource } from "./types.js";

export interface EngineOptions {
  /** The force file /run/machine-config-daemon-force exists on the node: always reboot. */
  forceFile?: boolean;
  /** Infrastructure controlPlaneTopology; `SingleReplica` never drains (§2.8). */
  controlPlaneTopology?: string;
}

export interface NdpTraceEntry {
  kind: "field" | "file" | "unit" | "sshkey";
  /** Field name, file path, unit name, or `passwd`. */
  key: string;
  change: "added" | "changed" | "removed";
  /** The rule that decided; absent when no rule matched (the item reboots) or for fields. */
  source?: RuleSource;
  /** For files: the path of the matched rule (may be a parent directory). */
  matchedPath?: string;
  actions: NdpAction[];
  note?: string;
}

export interface NdpDrainTrace {
  /** The §2.8 table result before the single-node override. */
  table: boolean;
  reason: string;
  /** True when the table said drain but controlPlaneTopology SingleReplica forbade it. */
  singleReplicaOverride: boolean;
  /** The registries.conf safety check, when a Special action made it relevant. */
  registries?: RegistriesSafety;
}

export interface NdpDecision {
  /** Final ordered actions (§2.7); never empty. */
  actions: NdpAction[];
  drain: boolean;
  reboot: boolean;
  trace: NdpTraceEntry[];
  drainTrace: NdpDrainTrace;
  /** Set when the decision could not be completed (undecodable registries.conf); the update would fail. */
  error?: string;
}

const REBOOT: NdpAction = { type: "Reboot" };
const NONE: NdpAction = { type: "None" };

/**
 * Collapses an accumulated action list (§2.6): any Reboot → [Reboot]; None is dropped when a real
 * action remains, otherwise the result is [None]. Never returns an empty list.
 */
export function collapseActions(acc: readonly NdpAction[]): NdpAction[] {
  if (acc.some((a) => a.type === "Reboot")) return [REBOOT];
  const real = acc.filter((a) => a.type !== "None");
  return real.length > 0 ? real : [NONE];
}

function fileTrace(item: ChangedItem, rules: EffectiveRules): NdpTraceEntry {
  const rule = closestFileRule(item.key, rules.files);
  if (!rule) return { kind: "file", key: item.key, change: item.change, actions: [REBOOT], note: "no rule matches this path" };
  return { kind: "file", key: item.key, change: item.change, source: rule.source, matchedPath: rule.path, actions: rule.actions };
}

function unitTrace(item: ChangedItem, rules: EffectiveRules): NdpTraceEntry {
  const rule = unitRule(item.key, rules);
  if (!rule) return { kind: "unit", key: item.key, change: item.change, actions: [REBOOT], note: "no rule for this unit" };
  return { kind: "unit", key: item.key, change: item.change, source: rule.source, actions: rule.actions };
}

const FIELD_NOTE: Record<RebootField, string> = {
  osImageURL: "OS image changed",
  kernelArguments: "kernel arguments changed",
  fips: "FIPS mode changed",
  kernelType: "kernel type changed",
  extensions: "extensions changed",
};

function registriesContents(mc: NormalizedMachineConfig): { present: boolean; text?: string; available: boolean } {
  const f = (mc.files ?? []).find((x) => x.path === REGISTRIES_CONF_PATH);
  if (!f) return { present: false, available: true };
  const text = f.contents ?? "";
  // The state plane carries contents for this path; an empty string with a non-empty digest means it was not captured.
  const available = text !== "" || f.contentsDigest === sha256Hex("") || f.contentsDigest === "";
  return { present: true, text, available };
}

function decideDrain(actions: readonly NdpAction[], oldMc: NormalizedMachineConfig, newMc: NormalizedMachineConfig): { drain: boolean; reason: string; registries?: RegistriesSafety; error?: string } {
  if (actions.some((a) => a.type === "Reboot")) return { drain: true, reason: "Reboot" };
  if (actions.some((a) => a.type === "Drain")) return { drain: true, reason: "Drain action" };
  if (!actions.some((a) => a.type === "Special")) return { drain: false, reason: "no Reboot, Drain or Special action" };
  const o = registriesContents(oldMc);
  const n = registriesContents(newMc);
  if (!o.available || !n.available) {
    // Upstream fails the update when it cannot read the file; a preview must not claim "no drain".
    return { drain: true, reason: "registries.conf could not be checked", error: `contents of ${REGISTRIES_CONF_PATH} are not available` };
  }
  try {
    const safety = registriesTextChangeSafety(o.text, n.text);
    return safety.safe
      ? { drain: false, reason: "registries.conf change is safe", registries: safety }
      : { drain: true, reason: "registries.conf change is unsafe", registries: safety };
  } catch (e) {
    return { drain: true, reason: "registries.conf could not be checked", error: (e as Error).message };
  }
}

/**
 * Computes what applying `newConfig` on a node running `oldConfig` does. Each config is a raw
 * MachineConfig object or a MachineConfigState snapshot. Throws MachineConfigError on unreadable
 * raw input; never reads anything from a host.
 */
export function computeDecision(oldConfig: unknown, newConfig: unknown, rules: EffectiveRules, opts: EngineOptions = {}): NdpDecision {
  const oldMc = toMachineConfigState(oldConfig);
  const newMc = toMachineConfigState(newConfig);
  const d = diffMachineConfigs(oldMc, newMc);
  const trace: NdpTraceEntry[] = [];

  if (opts.forceFile) trace.push({ kind: "field", key: "forceFile", change: "changed", actions: [REBOOT], note: "force file present" });
  for (const field of REBOOT_FIELDS)
    if (d.rebootFields.includes(field)) trace.push({ kind: "field", key: field, change: "changed", actions: [REBOOT], note: FIELD_NOTE[field] });
  // Every changed item is traced even when the result is already a reboot, so a preview explains all of it.
  for (const item of d.files) trace.push(fileTrace(item, rules));
  if (d.filesListChanged && d.files.length === 0)
    trace.push({ kind: "field", key: "storage.files", change: "changed", actions: [NONE], note: "only the order of entries changed" });
  for (const item of d.units) trace.push(unitTrace(item, rules));
  if (d.passwdChanged) {
    trace.push(
      rules.sshkey
        ? { kind: "sshkey", key: "passwd", change: "changed", source: rules.sshkey.source, actions: rules.sshkey.actions }
        : { kind: "sshkey", key: "passwd", change: "changed", actions: [REBOOT], note: "no sshkey rule" },
    );
  }

  const actions = collapseActions(trace.flatMap((t) => t.actions));
  const dr = decideDrain(actions, oldMc, newMc);
  const singleReplica = opts.controlPlaneTopology === "SingleReplica";
  const decision: NdpDecision = {
    actions,
    drain: dr.drain && !singleReplica,
    reboot: actions.some((a) => a.type === "Reboot"),
    trace,
    drainTrace: { table: dr.drain, reason: dr.reason, singleReplicaOverride: dr.drain && singleReplica },
  };
  if (dr.registries) decision.drainTrace.registries = dr.registries;
  if (dr.error) decision.error = dr.error;
  return decision;
}
