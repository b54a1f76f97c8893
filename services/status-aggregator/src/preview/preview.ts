// PreviewConfigChange as a pure function: for each targeted node, what applying the proposed
// MachineConfig over the node's current config would do (actions, drain, reboot, and which rule
// decided each changed item). Bad requests throw PreviewError with a message for the caller.
import type { MachineConfigState, NodePreview, NodeState } from "@lockstep/contracts";
import {
  type EffectiveRules,
  MachineConfigError,
  computeDecision,
  decisionToProto,
  normalizeMachineConfig,
  unreconcilableReason,
  type NormalizedMachineConfig,
} from "@lockstep/disruption";
import { parse } from "yaml";
import { isRendered, overlayMachineConfig } from "./overlay.js";

export class PreviewError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "PreviewError";
  }
}

export type PreviewTarget = { pool: string } | { node: string };

/** What the preview reads; the aggregator backs it with the state plane and its pool assignment. */
export interface PreviewWorld {
  node(name: string): NodeState | undefined;
  /** Names of the nodes a pool selects; undefined when there is no such pool. */
  poolNodes(pool: string): string[] | undefined;
  /** The pool a node belongs to ("" when none). */
  poolOf(node: string): string;
  machineConfig(name: string): MachineConfigState | undefined;
  rules: EffectiveRules;
}

export interface ProposedConfig {
  raw: Record<string, unknown>;
  normalized: NormalizedMachineConfig;
}

/** Parses the proposed MachineConfig (YAML or JSON text). */
export function parseProposed(text: string): ProposedConfig {
  if (text.trim() === "") throw new PreviewError("machine_config is empty: pass a MachineConfig as YAML or JSON");
  let raw: unknown;
  try {
    raw = parse(text);
  } catch (err) {
    throw new PreviewError(`machine_config is not valid YAML or JSON: ${(err as Error).message.split("\n")[0]}`);
  }
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) throw new PreviewError("machine_config must be one MachineConfig object");
  const obj = raw as Record<string, unknown>;
  if (obj["kind"] !== undefined && obj["kind"] !== "MachineConfig") {
    throw new PreviewError(`machine_config has kind ${JSON.stringify(obj["kind"])}; expected MachineConfig`);
  }
  try {
    return { raw: obj, normalized: normalizeMachineConfig(obj) };
  } catch (err) {
    if (err instanceof MachineConfigError) throw new PreviewError(`machine_config: ${err.message}`);
    throw err;
  }
}

const byName = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

function targetNodes(world: PreviewWorld, target: PreviewTarget): string[] {
  if ("pool" in target) {
    if (target.pool === "") throw new PreviewError("pool must not be empty");
    const nodes = world.poolNodes(target.pool);
    if (nodes === undefined) throw new PreviewError(`pool ${JSON.stringify(target.pool)} does not exist`);
    return [...nodes].sort(byName);
  }
  if (target.node === "") throw new PreviewError("node must not be empty");
  if (!world.node(target.node)) throw new PreviewError(`node ${JSON.stringify(target.node)} does not exist`);
  return [target.node];
}

export function previewConfigChange(world: PreviewWorld, target: PreviewTarget, proposedText: string): NodePreview[] {
  const proposed = parseProposed(proposedText);
  // A partial MachineConfig is added to the pool: step 0 compares it against having nothing.
  let unreconcilable = "";
  if (!isRendered(proposed.normalized)) {
    try {
      unreconcilable = unreconcilableReason({}, proposed.raw) ?? "";
    } catch (err) {
      if (err instanceof MachineConfigError) throw new PreviewError(`machine_config: ${err.message}`);
      throw err;
    }
  }
  return targetNodes(world, target).map((name) => previewNode(world, name, proposed.normalized, unreconcilable));
}

function previewNode(world: PreviewWorld, name: string, proposed: NormalizedMachineConfig, unreconcilable: string): NodePreview {
  const node = world.node(name);
  const currentConfig = node?.mco?.currentConfig ?? "";
  const base = { node: name, pool: world.poolOf(name), currentConfig, decision: undefined, error: "" };
  if (currentConfig === "") return { ...base, error: "the node has no currentConfig annotation" };
  const current = world.machineConfig(currentConfig);
  if (!current) return { ...base, error: `the node's current MachineConfig ${currentConfig} is not known` };
  const next = overlayMachineConfig(current, proposed);
  const decision = computeDecision(current, next, world.rules, { controlPlaneTopology: node?.mco?.controlPlaneTopology ?? "" });
  return { ...base, decision: decisionToProto(decision, unreconcilable), error: decision.error ?? "" };
}
