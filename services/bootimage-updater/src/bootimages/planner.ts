// One boot image pass over every enrolled MachineSet (mco-behaviors.md §3.6, §3.7, §4.5), as a
// pure function: the edge applies the patches and may re-summarise with the real outcomes.

import type {
  BootImagePolicyState,
  BootImagesState,
  ClusterVersionState,
  Condition,
  InfrastructureState,
  MachineSetState,
  MachineSetPlan as MachineSetPlanProto,
} from "@lockstep/contracts";
import { installVersion } from "@lockstep/versions";
import { determineArchitecture, type GoArch } from "./architecture.js";
import { patchAws, type AwsEnv } from "./aws.js";
import { patchAzure } from "./azure.js";
import { degradedCondition, progressingCondition, type KindCounters } from "./conditions.js";
import { evaluateGates } from "./gating.js";
import { patchGcp } from "./gcp.js";
import { checkHotLoop, type HotLoopState } from "./hot-loop.js";
import type { JsonObject } from "./merge-patch.js";
import type { PatchResult, VSphereTemplateUpdate } from "./patch-result.js";
import { PROVIDER_SPEC_KIND, type BootImagePlatform } from "./platform.js";
import { parseProviderSpec } from "./provider-spec.js";
import { computeManagedMachineSetsStatus, selectMachineSets, type ManagedMachineSetsStatus } from "./selection.js";
import { skewRecordUpdate, type SkewRecordUpdate } from "./skew-record.js";
import { parseStream, type StreamParseResult } from "./stream.js";
import { patchVSphere, type VSphereEnv } from "./vsphere.js";

export const OS_STREAM_LABEL = "machineconfiguration.openshift.io/osstream";
export const DEFAULT_OS_STREAM = "rhel-9";
export const OS_ID_LABEL = "machine.openshift.io/os-id";

export type DecisionAction = "patch" | "upToDate" | "skip" | "excluded" | "error";

export interface MachineSetDecision {
  readonly namespace: string;
  readonly name: string;
  /** For the optimistic-concurrency patch. */
  readonly resourceVersion: string;
  readonly platform: string;
  readonly action: DecisionAction;
  /** Skip / exclusion reason or error cause (without the MachineSet prefix). */
  readonly reason: string;
  readonly arch?: string;
  readonly currentImage?: string;
  readonly targetImage?: string;
  readonly patch?: JsonObject;
  readonly newProviderSpec?: JsonObject;
  readonly hotLoopValue?: string;
  readonly rhcosVersion?: string;
  readonly templateUpdate?: VSphereTemplateUpdate;
  /** Secret holding the stub Ignition to upgrade before patching (§3.12). */
  readonly userDataSecret?: string;
}

export interface PassCounters extends KindCounters {
  readonly patched: number;
  readonly upToDate: number;
  readonly excluded: number;
}

export interface PlanInput {
  readonly machineSets: readonly MachineSetState[];
  readonly bootImages: BootImagesState | undefined;
  readonly policy: BootImagePolicyState | undefined;
  readonly infra: InfrastructureState | undefined;
  readonly clusterVersion: ClusterVersionState | undefined;
  /** Event key that triggered the pass (§3.5); the conditions' reason. */
  readonly reason?: string;
  /** Architecture assumed for MachineSets without an arch annotation on single-arch clusters. */
  readonly controllerArch?: GoArch;
  readonly aws?: AwsEnv;
  /** Template look-ups of the edge (vSphere only); the Infrastructure part is filled from `infra`. */
  readonly vsphereTemplates?: Readonly<Record<string, Readonly<Record<string, string>>>>;
  readonly hotLoop?: HotLoopState;
}

export interface BootImagePass {
  /** ran; notRequired (unsupported platform); waiting (cluster mid-update: change nothing). */
  readonly status: "ran" | "notRequired" | "waiting";
  readonly message: string;
  readonly selection: ManagedMachineSetsStatus;
  readonly decisions: readonly MachineSetDecision[];
  readonly counters: PassCounters;
  /** Formatted `error syncing MAPI MachineSet <name>: <cause>` entries and controller-level errors. */
  readonly errors: readonly string[];
  readonly skewRecord: SkewRecordUpdate;
  /** Conditions to write; absent when the pass must not change them. */
  readonly conditions?: { readonly progressing?: Condition; readonly degraded: Condition };
  /** No manager or nothing enrolled: forget hot-loop memory (§3.13). */
  readonly clearHotLoop: boolean;
}

const EMPTY: PassCounters = { total: 0, ok: 0, skipped: 0, errored: 0, patched: 0, upToDate: 0, excluded: 0 };

export function machineSetError(name: string, cause: string): string {
  return `error syncing MAPI MachineSet ${name}: ${cause}`;
}

function decide(ms: MachineSetState, platform: BootImagePlatform, stream: StreamParseResult, input: PlanInput): Omit<MachineSetDecision, "namespace" | "name" | "resourceVersion" | "platform"> {
  const ownerRefs = ms.ownerReferences;
  if (ownerRefs.length > 0) {
    const owners = ownerRefs.map((o) => `${o.kind}/${o.name}`).join(", ");
    return { action: "skip", reason: `has OwnerReference (${owners}), skipping boot image update` };
  }
  const osStream = Object.hasOwn(ms.labels, OS_STREAM_LABEL) ? ms.labels[OS_STREAM_LABEL] : undefined;
  if (osStream !== undefined && osStream !== DEFAULT_OS_STREAM) return { action: "excluded", reason: `OS stream ${osStream} is not the default stream` };
  if (ms.templateLabels[OS_ID_LABEL] === "Windows") return { action: "excluded", reason: "Windows MachineSet" };

  const arch = determineArchitecture(ms.annotations, input.clusterVersion?.desired?.architecture ?? "", input.controllerArch ?? "amd64");
  if (arch.kind === "skip") return { action: "skip", reason: arch.reason };
  if (arch.kind === "error") return { action: "error", reason: arch.message };

  const parsed = parseProviderSpec(ms.providerSpecJson);
  if (!parsed.ok) return { action: "error", reason: parsed.message, arch: arch.streamArch };
  const expectedKind = PROVIDER_SPEC_KIND[platform];
  const kind = typeof parsed.spec["kind"] === "string" ? parsed.spec["kind"] : ms.providerSpecKind;
  if (kind !== "" && kind !== expectedKind) {
    return { action: "error", reason: `providerSpec kind ${kind} does not match platform ${platform} (expected ${expectedKind})`, arch: arch.streamArch };
  }
  if (!stream.ok) return { action: "error", reason: `coreos-bootimages: ${stream.error.message}`, arch: arch.streamArch };

  const region = input.infra?.region ?? "";
  let r: PatchResult;
  switch (platform) {
    case "AWS":
      r = patchAws(parsed.spec, stream.stream, region, arch.streamArch, input.aws);
      break;
    case "GCP":
      r = patchGcp(parsed.spec, stream.stream, region, arch.streamArch);
      break;
    case "Azure":
      r = patchAzure(parsed.spec, stream.stream, region, arch.streamArch);
      break;
    case "VSphere": {
      const env: VSphereEnv = {
        platformSpecPresent: input.infra?.vspherePlatformSpecPresent ?? false,
        failureDomains: input.infra?.vsphereFailureDomains ?? [],
        infrastructureName: input.infra?.infrastructureName ?? "",
        ...(input.vsphereTemplates && Object.hasOwn(input.vsphereTemplates, ms.name) ? { templates: input.vsphereTemplates[ms.name] } : {}),
      };
      r = patchVSphere(parsed.spec, stream.stream, region, arch.streamArch, env);
      break;
    }
  }
  const a = { arch: arch.streamArch };
  switch (r.action) {
    case "skip":
    case "excluded":
      return { ...a, action: r.action, reason: r.reason };
    case "error":
      return { ...a, action: "error", reason: r.message };
    case "upToDate":
      return { ...a, action: "upToDate", reason: "", currentImage: r.currentImage, targetImage: r.targetImage, ...(r.rhcosVersion ? { rhcosVersion: r.rhcosVersion } : {}) };
    case "patch": {
      const refusal = checkHotLoop(input.hotLoop ?? {}, ms.name, r.hotLoopValue);
      if (refusal) return { ...a, action: "error", reason: refusal, currentImage: r.currentImage, targetImage: r.targetImage };
      const uds = parsed.spec["userDataSecret"];
      const secret = uds && typeof uds === "object" && !Array.isArray(uds) && typeof uds["name"] === "string" ? uds["name"] : undefined;
      return {
        ...a,
        action: "patch",
        reason: "",
        currentImage: r.currentImage,
        targetImage: r.targetImage,
        patch: r.patch,
        newProviderSpec: r.newProviderSpec,
        hotLoopValue: r.hotLoopValue,
        ...(r.rhcosVersion ? { rhcosVersion: r.rhcosVersion } : {}),
        ...(r.templateUpdate ? { templateUpdate: r.templateUpdate } : {}),
        ...(secret ? { userDataSecret: secret } : {}),
      };
    }
  }
}

export interface SummaryContext {
  readonly reason: string;
  readonly skewMode: string;
  readonly releaseVersion: string;
  readonly installVersion: string;
}

/**
 * Counters, errors, conditions and the skew record for a finished pass. The edge calls it again
 * after applying patches when a patch failed (turn that decision into an error first).
 */
export function summarisePass(decisions: readonly MachineSetDecision[], ctx: SummaryContext) {
  const c = { ...EMPTY, total: decisions.length };
  const errors: string[] = [];
  const marketplace: string[] = [];
  for (const d of decisions) {
    if (d.action === "error") {
      c.errored++;
      errors.push(machineSetError(d.name, d.reason));
    } else {
      c.ok++;
    }
    if (d.action === "skip") c.skipped++;
    if (d.action === "patch") c.patched++;
    if (d.action === "upToDate") c.upToDate++;
    if (d.action === "excluded") c.excluded++;
    if (d.rhcosVersion) marketplace.push(d.rhcosVersion);
  }
  const skewRecord = skewRecordUpdate({
    mode: ctx.skewMode,
    evaluated: c.total,
    errored: c.errored,
    skipped: c.skipped,
    marketplaceReleases: marketplace,
    releaseVersion: ctx.releaseVersion,
    installVersion: ctx.installVersion,
  });
  return {
    counters: c as PassCounters,
    errors,
    skewRecord,
    conditions: { progressing: progressingCondition(c, ctx.reason), degraded: degradedCondition(c.errored, errors, ctx.reason) },
  };
}

export function planBootImageUpdates(input: PlanInput): BootImagePass {
  const reason = input.reason || "NA";
  const gate = evaluateGates(input.infra, input.clusterVersion);
  const unchanged = (why: string): SkewRecordUpdate => ({ action: "unchanged", why });
  if (!gate.run) {
    return {
      status: gate.gate === "platform" ? "notRequired" : "waiting",
      message: gate.message,
      selection: computeManagedMachineSetsStatus(input.policy, undefined),
      decisions: [],
      counters: EMPTY,
      errors: [],
      skewRecord: unchanged(gate.message),
      clearHotLoop: false,
    };
  }

  const selection = computeManagedMachineSetsStatus(input.policy, gate.platform);
  const selected = selectMachineSets(input.machineSets, selection);
  const ctx: SummaryContext = {
    reason,
    skewMode: input.policy?.skewStatus?.mode ?? "",
    releaseVersion: input.bootImages?.releaseVersion ?? "",
    installVersion: installVersion(input.clusterVersion),
  };
  if (selected.enrolled.length === 0) {
    const s = summarisePass([], ctx);
    const problem = selected.problem ? [`invalid MachineSet selection: ${selected.problem}`] : [];
    return {
      status: "ran",
      message: problem[0] ?? `no MachineSet is enrolled (mode ${selection.mode})`,
      selection,
      decisions: [],
      counters: s.counters,
      errors: problem,
      skewRecord: s.skewRecord,
      conditions: { progressing: s.conditions.progressing, degraded: degradedCondition(0, problem, reason) },
      clearHotLoop: true,
    };
  }
  if (!input.bootImages) {
    const err = "failed to fetch coreos-bootimages config map: not found";
    return {
      status: "ran",
      message: err,
      selection,
      decisions: [],
      counters: { ...EMPTY, total: selected.enrolled.length },
      errors: [err],
      skewRecord: unchanged("coreos-bootimages is missing"),
      // Upstream fails before Progressing is touched.
      conditions: { degraded: degradedCondition(0, [err], reason) },
      clearHotLoop: false,
    };
  }

  const stream = parseStream(input.bootImages.streamJson);
  const decisions = selected.enrolled.map((ms): MachineSetDecision => ({
    namespace: ms.namespace,
    name: ms.name,
    resourceVersion: ms.resourceVersion,
    platform: gate.platform,
    ...decide(ms, gate.platform, stream, input),
  }));
  const s = summarisePass(decisions, ctx);
  return {
    status: "ran",
    message: s.conditions.progressing.message,
    selection,
    decisions,
    counters: s.counters,
    errors: s.errors,
    skewRecord: s.skewRecord,
    conditions: s.conditions,
    clearHotLoop: false,
  };
}

const PROTO_ACTION: Readonly<Record<DecisionAction, string>> = { patch: "Patch", upToDate: "UpToDate", skip: "Skip", excluded: "Excluded", error: "Error" };

/** The wire form served by BootImageService.Preview and published in events. */
export function toMachineSetPlan(d: MachineSetDecision): MachineSetPlanProto {
  return {
    namespace: d.namespace,
    name: d.name,
    platform: d.platform,
    action: PROTO_ACTION[d.action],
    reason: d.reason,
    currentImage: d.currentImage ?? "",
    targetImage: d.targetImage ?? "",
    patchJson: d.patch && Object.keys(d.patch).length > 0 ? JSON.stringify({ spec: { template: { spec: { providerSpec: { value: d.patch } } } } }) : "",
  };
}
