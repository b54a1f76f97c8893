// The bootimage-updater's reconcile: one full pass over every enrolled MachineSet per trigger, as
// upstream's single worker (mco-behaviors.md §3.5, §3.6). It reads only the state-plane view,
// plans with the pure core, then applies: providerSpec merge patches with the snapshot's
// resourceVersion, BootImagePolicy status when it changed, and bootimage.* events.

import {
  BootImagePolicyState,
  type BootImageStatus,
  type BootImagesState,
  type ClusterVersionState,
  type Condition,
  type InfrastructureState,
  type MachineSetPlan,
  type MachineSetState,
  type StateKindName,
  type StateOf,
} from "@lockstep/contracts";
import { isAlreadyExists, isConflict, isNotFound } from "@lockstep/kube";
import type { ReconcileResult } from "@lockstep/reconcile";
import { effectiveSkewStatus, installVersion } from "@lockstep/versions";
import type { Logger } from "pino";
import {
  bootImagePlatform,
  computeManagedMachineSetsStatus,
  defaultConditions,
  degradedCondition,
  OPTED_IN_AT_ANNOTATION,
  planBootImageUpdates,
  recordPatch,
  summarisePass,
  toMachineSetPlan,
  type GoArch,
  type HotLoopState,
  type MachineSetDecision,
  type PassCounters,
  type PlanInput,
  type SkewRecordUpdate,
} from "../bootimages/index.js";
import { machineSetRef, outcomeEvents, updatedEvent, type ControllerProblem, type PlannedEvent } from "./events.js";
import type { BootImageWriter } from "./kube-writer.js";
import type { PatchFailureReason } from "./patch-metrics.js";
import { buildPolicyStatus, conditionsOf, snapshotAgrees, type PassResult } from "./policy-status.js";
import { releaseAmis } from "./release-amis.js";
import { configMapRef, controllerProblems, infrastructureRef, policyRef, unknownPlatformError } from "./problems.js";
import { toSkewStatusState, type SkewStatus } from "./skew-mode.js";
import { CLUSTER_VERSION_NAME, INFRASTRUCTURE_NAME, POLICY_NAME, triggerReason, type Change } from "./triggers.js";

/** The single work-queue key: every trigger re-evaluates everything. */
export const PASS_KEY = "cluster";

/** What the updater reads: a StateCache satisfies it. */
export interface StateView {
  get<K extends StateKindName>(kind: K, name: string, namespace?: string): StateOf<K> | undefined;
  list<K extends StateKindName>(kind: K): StateOf<K>[];
}

export interface UpdaterSettings {
  readonly bootImagesNamespace: string;
  readonly bootImagesName: string;
  /** Without EC2 credentials: AMIs known to be standard RHCOS images (mco-behaviors.md §3.18). */
  readonly awsAllowedAmis: readonly string[];
  /** Architecture assumed for MachineSets without an arch annotation on single-arch clusters. */
  readonly controllerArch: GoArch;
  /** Bounded periodic retry while MachineSets are in error (§3.15 Lockstep rule); skips never retry. */
  readonly errorRetryMs: number;
  /** How soon to look again while a written MachineSet's snapshot has not caught up. */
  readonly staleRecheckMs: number;
  /** After this long a stale snapshot is re-planned anyway. */
  readonly staleTimeoutMs: number;
}

export interface UpdaterOptions {
  readonly view: StateView;
  readonly writer: BootImageWriter;
  readonly publish: (event: PlannedEvent) => Promise<void>;
  readonly logger: Logger;
  readonly settings: UpdaterSettings;
  readonly now?: () => Date;
  /** Called after every pass (tests and benchmarks observe progress through it). */
  readonly onPass?: (report: PassReport) => void;
  /**
   * Whether this replica is the one writer (leader election); default always. A follower answers
   * previews from its view but patches nothing and writes no status.
   */
  readonly leading?: () => boolean;
  /** A MachineSet patch failed for good (lockstep_bootimage_machineset_patch_failures_total). */
  readonly onPatchFailed?: (reason: PatchFailureReason) => void;
}

export interface PassReport {
  readonly reason: string;
  /**
   * ran, notRequired, waiting (cluster mid-update), stale (waiting for a newer snapshot of a written
   * MachineSet), or stateStale (the whole state plane is too old: nothing written).
   */
  readonly status: "ran" | "notRequired" | "waiting" | "stale" | "stateStale";
  readonly patched: readonly string[];
  readonly errors: readonly string[];
  /** resourceVersion of the coreos-bootimages snapshot the pass planned with. */
  readonly bootImagesResourceVersion: string;
}

interface View {
  machineSets: MachineSetState[];
  bootImages: BootImagesState | undefined;
  policy: BootImagePolicyState | undefined;
  infra: InfrastructureState | undefined;
  clusterVersion: ClusterVersionState | undefined;
}

interface LastPass {
  decisions: readonly MachineSetDecision[];
  counters: PassCounters;
  skew: SkewStatus;
  releaseVersion: string;
  message: string;
}

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

export class BootImageUpdater {
  private reason = "MAPIMachineSetAdded";
  private hotLoop: HotLoopState = {};
  /** MachineSets written (or refused with 409) from a snapshot: key → that snapshot's resourceVersion. */
  private readonly stale = new Map<string, { rv: string; at: number }>();
  private seenOutcomes = new Map<string, string>();
  private lastFingerprint: string | undefined;
  private lastBaseRv: string | undefined;
  private lastConditions: Condition[] | undefined;
  private last: LastPass | undefined;
  private synced = false;
  private readonly now: () => Date;
  /** Configured allow-list plus the AMIs of every stream observed (release-amis.ts). */
  private readonly knownAmis: Set<string>;
  private lastStreamRv: string | undefined;

  constructor(private readonly o: UpdaterOptions) {
    this.now = o.now ?? (() => new Date());
    this.knownAmis = new Set(o.settings.awsAllowedAmis);
  }

  /** Marks the view complete (after the watcher's meta.synced): Preview and GetStatus answer from then on. */
  markSynced(): void {
    this.synced = true;
  }

  get isSynced(): boolean {
    return this.synced;
  }

  /** Records a state-plane change; true when it calls for a pass. */
  noteChange(c: Change): boolean {
    const reason = triggerReason(c, this.o.settings);
    if (reason) {
      this.reason = reason;
      return true;
    }
    // A MachineSet we wait on changed in a way the §3.5 filter drops (e.g. replicas): re-plan now.
    return c.kind === "machineSet" && this.stale.has(`${c.namespace ?? ""}/${c.name}`);
  }

  private view(): View {
    const v = this.o.view;
    const s = this.o.settings;
    return {
      machineSets: v.list("machineSet"),
      bootImages: v.get("bootImages", s.bootImagesName, s.bootImagesNamespace),
      policy: v.get("bootImagePolicy", POLICY_NAME),
      infra: v.get("infrastructure", INFRASTRUCTURE_NAME),
      clusterVersion: v.get("clusterVersion", CLUSTER_VERSION_NAME),
    };
  }

  private planInput(view: View, reason: string) {
    if (view.bootImages && view.bootImages.resourceVersion !== this.lastStreamRv) {
      for (const ami of releaseAmis(view.bootImages.streamJson)) this.knownAmis.add(ami);
      this.lastStreamRv = view.bootImages.resourceVersion;
    }
    const selection = computeManagedMachineSetsStatus(view.policy, bootImagePlatform(view.infra));
    const skew = effectiveSkewStatus({ policy: view.policy, infrastructure: view.infra, clusterVersion: view.clusterVersion, selectionMode: selection.mode });
    const policy = BootImagePolicyState.fromPartial({ ...(view.policy ?? { name: POLICY_NAME }), skewStatus: toSkewStatusState(skew) });
    const input: PlanInput = {
      machineSets: view.machineSets,
      bootImages: view.bootImages,
      policy,
      infra: view.infra,
      clusterVersion: view.clusterVersion,
      reason,
      controllerArch: this.o.settings.controllerArch,
      aws: { allowedAmis: this.knownAmis },
      hotLoop: this.hotLoop,
    };
    return { input, selection, skew };
  }

  /** The plan for the current view, without writing anything (BootImageService.Preview). */
  preview(): MachineSetPlan[] {
    const { input } = this.planInput(this.view(), this.reason);
    return planBootImageUpdates(input).decisions.map(toMachineSetPlan);
  }

  /** The outcome of the last complete pass (BootImageService.GetStatus). */
  status(): BootImageStatus {
    const l = this.last;
    return {
      machineSets: (l?.decisions ?? []).map(toMachineSetPlan),
      clusterBootImageOcpVersion: l?.skew.mode === "None" ? "" : (l?.skew.ocpVersion ?? ""),
      clusterBootImageRhcosVersion: l?.skew.mode === "None" ? "" : (l?.skew.rhcosVersion ?? ""),
      releaseVersion: l?.releaseVersion ?? "",
      updated: l?.counters.patched ?? 0,
      skipped: l?.counters.skipped ?? 0,
      errors: l?.counters.errored ?? 0,
    };
  }

  /**
   * A pass held because the state plane is stale (`why`): fail closed, no MachineSet patch (and no
   * status write) from a view nobody vouches for, as a MachineSet changed or deleted since, or a
   * newer release's images, would be invisible to it. The runnable's controller holds the pass and
   * runs it when the view is fresh again; this reports it.
   */
  held(why: string): void {
    this.o.logger.warn({ why }, "state plane stale; boot image pass held");
    this.o.onPass?.({ reason: this.reason, status: "stateStale", patched: [], errors: [], bootImagesResourceVersion: this.view().bootImages?.resourceVersion ?? "" });
  }

  /** One full pass. Throws only for transient API failures (the queue retries with backoff). */
  async reconcile(): Promise<ReconcileResult> {
    const s = this.o.settings;
    const log = this.o.logger;
    const reason = this.reason;
    if (!(this.o.leading?.() ?? true)) return;
    const view = this.view();
    let policyRv = view.policy?.resourceVersion;
    if (!view.policy) {
      try {
        policyRv = (await this.o.writer.createPolicy(POLICY_NAME)).resourceVersion;
        log.info({ name: POLICY_NAME }, "created BootImagePolicy with defaults");
      } catch (err) {
        if (isAlreadyExists(err) || isConflict(err)) return { requeueAfter: s.staleRecheckMs };
        throw err;
      }
    }

    const { input, selection, skew } = this.planInput(view, reason);
    const pass = planBootImageUpdates(input);
    if (pass.clearHotLoop) this.hotLoop = {};

    // Apply the patches; a decision whose write failed for good becomes an error.
    const now = this.now();
    const decisions: MachineSetDecision[] = [];
    const patched: MachineSetDecision[] = [];
    let waiting = false;
    let rewritten = false;
    for (const d of pass.decisions) {
      if (d.action !== "patch") {
        decisions.push(d);
        continue;
      }
      const key = `${d.namespace}/${d.name}`;
      const st = this.stale.get(key);
      if (st && st.rv === d.resourceVersion && now.getTime() - st.at < s.staleTimeoutMs) {
        waiting = true;
        decisions.push(d);
        continue;
      }
      this.stale.delete(key);
      // Deposed mid-pass: the new leader plans again from its own view.
      if (!(this.o.leading?.() ?? true)) return;
      if (d.templateUpdate || !d.patch || Object.keys(d.patch).length === 0) {
        this.o.onPatchFailed?.("template");
        rewritten = true;
        decisions.push({ ...d, action: "error", reason: `vSphere template ${d.templateUpdate?.templateName ?? ""} must be re-imported, which needs vCenter access this updater does not have` });
        continue;
      }
      try {
        await this.o.writer.patchMachineSetProviderSpec(d.namespace, d.name, d.resourceVersion, d.patch);
        this.hotLoop = recordPatch(this.hotLoop, d.name, d.hotLoopValue ?? "");
        this.stale.set(key, { rv: d.resourceVersion, at: now.getTime() });
        decisions.push(d);
        patched.push(d);
        log.info({ machineSet: key, from: d.currentImage, to: d.targetImage, count: this.hotLoop[d.name]?.count }, "machineset boot image updated");
      } catch (err) {
        if (isConflict(err) || isNotFound(err)) {
          // Decided on an old snapshot: wait for the newer one and decide again.
          this.stale.set(key, { rv: d.resourceVersion, at: now.getTime() });
          waiting = true;
          decisions.push(d);
          log.info({ machineSet: key, resourceVersion: d.resourceVersion, status: isConflict(err) ? 409 : 404 }, "machineset changed since the snapshot; re-planning");
          continue;
        }
        this.o.onPatchFailed?.("request");
        rewritten = true;
        decisions.push({ ...d, action: "error", reason: `failed to patch providerSpec: ${message(err)}` });
        log.warn({ machineSet: key, err: message(err) }, "machineset patch failed");
      }
    }
    for (const key of [...this.stale.keys()]) if (!pass.decisions.some((d) => `${d.namespace}/${d.name}` === key)) this.stale.delete(key);

    for (const d of patched) await this.emit(updatedEvent(d));
    const patchedNames = patched.map((d) => d.name);
    if (waiting) {
      this.o.onPass?.({ reason, status: "stale", patched: patchedNames, errors: [], bootImagesResourceVersion: view.bootImages?.resourceVersion ?? "" });
      return { requeueAfter: s.staleRecheckMs };
    }

    // The pass outcome, re-summarised when a write failed.
    const releaseVersion = view.bootImages?.releaseVersion ?? "";
    let result: PassResult | undefined;
    let errors: readonly string[] = pass.errors;
    let skewRecord: SkewRecordUpdate = pass.skewRecord;
    let counters = pass.counters;
    if (pass.status === "ran" && pass.conditions) {
      result = { conditions: pass.conditions, decisions, counters };
      if (rewritten) {
        const sum = summarisePass(decisions, { reason, skewMode: skew.mode, releaseVersion, installVersion: installVersion(view.clusterVersion) });
        counters = sum.counters;
        errors = [...sum.errors, ...pass.errors.filter((e) => !e.startsWith("error syncing MAPI MachineSet "))];
        skewRecord = sum.skewRecord;
        result = { conditions: sum.conditions, decisions, counters };
      }
    }
    const platformError = pass.status === "notRequired" ? unknownPlatformError(view.infra) : undefined;
    if (platformError) {
      errors = [platformError];
      result = { conditions: { degraded: degradedCondition(0, errors, reason) } };
    }
    const prevConditions = this.lastConditions ?? view.policy?.conditions ?? [];
    if (!result && !prevConditions.some((c) => c.type === "BootImageUpdateDegraded")) {
      // Before the first pass that runs, both conditions exist with reason NA (as upstream's operator seeds them).
      result = { conditions: defaultConditions() };
    }

    const built = buildPolicyStatus({ generation: Number(view.policy?.generation ?? 0), selection, skew, skewRecord, releaseVersion, result }, prevConditions, now);
    const agrees = snapshotAgrees(view.policy, built.doc, built.skew);
    const unchanged = built.fingerprint === this.lastFingerprint && (agrees || policyRv === this.lastBaseRv);
    if (!unchanged) {
      try {
        await this.o.writer.patchPolicyStatus(POLICY_NAME, policyRv ?? "", built.doc);
      } catch (err) {
        if (isConflict(err) || isNotFound(err)) {
          log.info({ name: POLICY_NAME, resourceVersion: policyRv }, "BootImagePolicy changed since the snapshot; re-planning");
          return { requeueAfter: s.staleRecheckMs };
        }
        throw err;
      }
      this.lastFingerprint = built.fingerprint;
      this.lastBaseRv = policyRv;
      this.lastConditions = conditionsOf(built.doc) ?? this.lastConditions;
      log.info({ name: POLICY_NAME, reason, mode: selection.mode, skewMode: built.skew.mode, bootImage: built.doc.clusterBootImageVersion, errored: counters.errored }, "BootImagePolicy status written");
      if (selection.defaultOptIn) {
        // The only record that a platform default opted the cluster in (§3.4).
        await this.o.writer.annotatePolicy(POLICY_NAME, { [OPTED_IN_AT_ANNOTATION]: now.toISOString() });
      }
    }

    const problems: ControllerProblem[] = controllerProblems(errors, {
      infrastructure: infrastructureRef(INFRASTRUCTURE_NAME),
      policy: policyRef(POLICY_NAME),
      bootImages: configMapRef(s.bootImagesNamespace, s.bootImagesName),
    });
    if (result?.decisions || problems.length > 0 || pass.status === "ran") {
      const planned = outcomeEvents(result?.decisions ?? [], problems, this.seenOutcomes);
      for (const e of planned.events) if (!(await this.emit(e))) planned.seen.delete(this.eventKey(e));
      this.seenOutcomes = planned.seen;
    }
    if (result?.decisions || pass.status !== "waiting") {
      this.last = { decisions: result?.decisions ?? [], counters, skew: built.skew, releaseVersion, message: pass.message };
    }
    if (pass.status === "waiting") log.info({ reason: pass.message }, "boot image pass waiting for the cluster to be stable");
    this.o.onPass?.({ reason, status: pass.status, patched: patchedNames, errors, bootImagesResourceVersion: view.bootImages?.resourceVersion ?? "" });
    return errors.length > 0 ? { requeueAfter: s.errorRetryMs } : undefined;
  }

  private eventKey(e: PlannedEvent): string {
    return e.machineSet ? `${e.machineSet.namespace}/${e.machineSet.name}` : `${e.object.kind}/${e.object.namespace}/${e.object.name}`;
  }

  /** Publishes one event; a failure is logged and reported so the fact is offered again next pass. */
  private async emit(e: PlannedEvent): Promise<boolean> {
    try {
      await this.o.publish(e);
      return true;
    } catch (err) {
      this.o.logger.warn({ id: e.id, err: message(err) }, "boot image event not published");
      return false;
    }
  }
}

export { machineSetRef };
