// Which Kubernetes Event each published Lockstep fact becomes, on the object the fact is about (the
// Event table in the README). Pure: a recorder (packages/kube/src/event-recorder.ts) writes them.
// Notes leave out what changes on every repeat (counts, retry times), so repeats fold into one
// Event's series instead of becoming new objects.
import { Events, OperationType, type EventType } from "@lockstep/contracts";
import { Resources, type EventNote, type ObjectRef } from "@lockstep/kube";

const ref = (r: { apiVersion: string; kind: string }, name: string, namespace?: string): ObjectRef => ({ apiVersion: r.apiVersion, kind: r.kind, name, ...(namespace ? { namespace } : {}) });
/**
 * A Node's Events carry the node's name as `uid`, as the kubelet's do: `kubectl describe node` lists
 * the Events whose involvedObject.uid is the Node's uid or its name, and the name is known without a
 * lookup (an Event without a uid is listed by `get events` but never by `describe`).
 */
const nodeRef = (name: string): ObjectRef => ({ ...ref(Resources.node, name), uid: name });
/** The ClusterVersion is a singleton named `version` (as the CVO's). */
export const CLUSTER_VERSION = ref(Resources.clusterVersion, "version");

const op = (o: OperationType | undefined) => (o === undefined ? "an operation" : (OperationType[o]?.replace("OPERATION_TYPE_", "") ?? String(o)));
/** `budget <name>: …` is how a budget scope words a refusal (packages/lease-policy/src/capacity.ts). */
const BUDGET_REASON = /^budget ([^:\s]+): ([^;]*)/;

/** The Events for one published fact (none for facts about no single object, e.g. insight.changed). */
export function kubeEventsFor(type: EventType<unknown>, message: unknown): EventNote[] {
  const m = message as any;
  switch (type.subject) {
    case Events.leaseGranted.subject:
      return [{ regarding: nodeRef(m.lease?.node ?? ""), type: "Normal", reason: "LeaseGranted", action: "Grant", note: `lease for ${op(m.lease?.operation)} granted to ${m.lease?.holder}${m.lease?.reason ? `: ${m.lease.reason}` : ""}` }];
    case Events.leaseReleased.subject:
      return [{ regarding: nodeRef(m.lease?.node ?? ""), type: "Normal", reason: "LeaseReleased", action: "Release", note: `lease for ${op(m.lease?.operation)} released by ${m.lease?.holder}` }];
    case Events.leaseExpired.subject:
      return [{ regarding: nodeRef(m.lease?.node ?? ""), type: "Warning", reason: "LeaseExpired", action: "Expire", note: `lease for ${op(m.lease?.operation)} held by ${m.lease?.holder} expired without renewal` }];
    case Events.leasePreempted.subject:
      return [{ regarding: nodeRef(m.lease?.node ?? ""), type: "Warning", reason: "LeasePreempted", action: "Preempt", note: `lease of ${m.previous?.holder} (${op(m.previous?.operation)}) preempted by ${m.lease?.holder} (${op(m.lease?.operation)}): ${m.reason}` }];
    case Events.leasePreemptionWithdrawn.subject:
      return [{ regarding: nodeRef(m.lease?.node ?? ""), type: "Normal", reason: "LeasePreemptionWithdrawn", action: "Withdraw", note: `preemption of ${m.lease?.holder}'s lease withdrawn: ${m.reason}` }];
    case Events.leaseDenied.subject: {
      const notes: EventNote[] = [];
      const held = m.current?.holder ? `; held by ${m.current.holder} (${op(m.current.operation)})` : "";
      const budget = BUDGET_REASON.exec(m.reason ?? "");
      notes.push({ regarding: nodeRef(m.node ?? ""), type: "Warning", reason: "LeaseRefused", action: "Refuse", note: `lease for ${op(m.operation)} refused to ${m.requester}${held}: ${budget ? `budget ${budget[1]} exhausted` : m.reason}` });
      if (budget) notes.push({ regarding: ref(Resources.disruptionBudget, budget[1]!), type: "Warning", reason: "BudgetExhausted", action: "Refuse", note: `no disruption left (${budget[2]!.trim()}): leases wait` });
      return notes;
    }
    case Events.upgradeableChanged.subject:
      return [
        m.upgradeable
          ? { regarding: CLUSTER_VERSION, type: "Normal", reason: "UpgradeAllowed", action: "Allow", note: `minor upgrades allowed${m.message ? `: ${m.message}` : ""}` }
          : { regarding: CLUSTER_VERSION, type: "Warning", reason: "UpgradeBlocked", action: "Block", note: `minor upgrades blocked (${m.reason}): ${m.message}` },
      ];
    case Events.skewEvaluated.subject:
      return (m.report?.laggingPools ?? []).map(
        (p: any): EventNote => ({
          regarding: ref(Resources.machineConfigPool, p.pool),
          type: "Warning",
          reason: "PoolLagging",
          action: "Evaluate",
          note: `pool at ${p.poolVersion || "an older version"} lags the control plane ${m.report.controlPlaneVersion} (${p.reason}${p.paused ? ", paused" : ""})`,
        }),
      );
    case Events.updateCompleted.subject:
      return [{ regarding: CLUSTER_VERSION, type: "Normal", reason: "UpdateCompleted", action: "Complete", note: `update to ${m.version} completed on every node of ${(m.pools ?? []).join(", ")}` }];
    case Events.bootImageUpdated.subject:
      return [{ regarding: ref(Resources.machineSet, m.machineSet?.name ?? "", m.machineSet?.namespace), type: "Normal", reason: "BootImagePatched", action: "Patch", note: `boot image ${m.previousImage || "(none)"} replaced by ${m.image} (${m.platform})` }];
    case Events.bootImageSkipped.subject:
      return [{ regarding: ref(Resources.machineSet, m.machineSet?.name ?? "", m.machineSet?.namespace), type: "Normal", reason: "BootImageSkipped", action: "Skip", note: `boot image not managed here: ${m.reason}` }];
    case Events.bootImageUpdateFailed.subject:
      return [{ regarding: ref(Resources.machineSet, m.machineSet?.name ?? "", m.machineSet?.namespace), type: "Warning", reason: "BootImageUpdateFailed", action: "Patch", note: `boot image update failed: ${m.error}` }];
    default:
      return [];
  }
}

/** The lease webhook refused a disruptive request on a leased node (a refusal of the API server). */
export function webhookRefusal(o: { node: string; requester: string; what: string; holder: string; operation: OperationType | undefined }): EventNote {
  return { regarding: nodeRef(o.node), type: "Warning", reason: "UpdateRefused", action: "Refuse", note: `${o.what} by ${o.requester} refused: node leased to ${o.holder} for ${op(o.operation)}` };
}
