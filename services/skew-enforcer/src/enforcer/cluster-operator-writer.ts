// The only Kubernetes writes of the skew-enforcer: ClusterOperator `lockstep` (created when missing,
// its status through the status subresource). Every status write is conditional on the
// resourceVersion just read: a 409 means someone else wrote first, so read again and decide again.
import { CustomObjectsApi, isAlreadyExists, isConflict, isNotFound, makeJsonApiClient, type JsonCustomObjectsApi, type KubeConfigLike } from "@lockstep/kube";
import { HotLoopGuard, type HotLoopError } from "@lockstep/reconcile";
import type { Condition } from "@lockstep/contracts";
import type { Logger } from "pino";
import { newClusterOperator, observedStatus, statusFingerprint, statusUpdateBody, type Json, type ObservedStatus } from "./cluster-operator-status.js";
import { clusterOperatorStatusChanged, type ClusterOperatorStatus } from "@lockstep/skew-rules";

const GROUP = "config.openshift.io";
const VERSION = "v1";
const PLURAL = "clusteroperators";

export type WriteOutcome =
  | { readonly result: "unchanged"; readonly observed: ObservedStatus }
  | { readonly result: "written"; readonly observed: ObservedStatus }
  | { readonly result: "refused"; readonly error: HotLoopError };

export interface WriterHooks {
  onConflict?(): void;
  onWrite?(): void;
  onCreate?(): void;
}

export class ClusterOperatorWriter {
  private readonly api: JsonCustomObjectsApi;
  /**
   * Counts successful identical writes; it is never reset on "observed == desired", because our
   * own write always comes back through the state plane looking converged. The same status
   * written a third time means it was undone twice: refused and reported.
   */
  private readonly guard: HotLoopGuard;
  private lastWritten: string | undefined;

  constructor(
    kc: KubeConfigLike,
    readonly name: string,
    private readonly logger: Logger,
    private readonly hooks: WriterHooks = {},
    private readonly maxConflicts = 3,
  ) {
    this.api = makeJsonApiClient(kc, CustomObjectsApi);
    this.guard = new HotLoopGuard({ threshold: 3 });
  }

  /**
   * Reads the object (creating it when missing), asks `desired` for the status given the current
   * conditions, and writes it only when it differs. Throws after repeated conflicts or on any other
   * API error (the work queue retries with backoff).
   */
  async converge(desired: (previous: readonly Condition[]) => ClusterOperatorStatus): Promise<WriteOutcome> {
    const key = `clusteroperator/${this.name}`;
    for (let attempt = 1; ; attempt++) {
      const current = await this.readOrCreate();
      const observed = observedStatus(current);
      const next = desired(observed.conditions);
      if (!clusterOperatorStatusChanged(observed, next)) return { result: "unchanged", observed };
      const fingerprint = statusFingerprint(next);
      if (this.lastWritten === fingerprint && this.guard.count(key) >= this.guard.threshold - 1) {
        try {
          this.guard.assert(key, fingerprint);
        } catch (error) {
          return { result: "refused", error: error as HotLoopError };
        }
      }
      try {
        await this.api.replaceClusterCustomObjectStatus({ group: GROUP, version: VERSION, plural: PLURAL, name: this.name, body: statusUpdateBody(current, next) });
      } catch (err) {
        if (!isConflict(err)) throw err;
        this.hooks.onConflict?.();
        this.logger.info({ name: this.name, attempt }, "cluster operator status conflict; re-reading");
        if (attempt >= this.maxConflicts) throw new Error(`ClusterOperator ${this.name}: ${attempt} write conflicts in a row`, { cause: err });
        continue;
      }
      this.guard.check(key, fingerprint);
      this.lastWritten = fingerprint;
      this.hooks.onWrite?.();
      return { result: "written", observed: { conditions: [...next.conditions], versions: [...next.versions], relatedObjects: [...next.relatedObjects] } };
    }
  }

  private async readOrCreate(): Promise<Json> {
    try {
      return (await this.api.getClusterCustomObject({ group: GROUP, version: VERSION, plural: PLURAL, name: this.name })) as Json;
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    try {
      const created = (await this.api.createClusterCustomObject({ group: GROUP, version: VERSION, plural: PLURAL, body: newClusterOperator(this.name) })) as Json;
      this.hooks.onCreate?.();
      this.logger.info({ name: this.name }, "cluster operator created");
      return created;
    } catch (err) {
      // Created meanwhile by another replica: read theirs.
      if (!isAlreadyExists(err)) throw err;
      return (await this.api.getClusterCustomObject({ group: GROUP, version: VERSION, plural: PLURAL, name: this.name })) as Json;
    }
  }
}
