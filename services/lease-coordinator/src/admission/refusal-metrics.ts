// lockstep_webhook_refusals_total{requester_kind, requester, operation}: disruptive requests the
// lease webhook refused, so "the same requester is refused over and over" can page. The requester is
// a Kubernetes user name, unbounded in principle, so its label is bounded:
// - node identities (system:node:<name>) are one requester, "system:node": per node they would be
//   10,000 series on a large cluster, and a kubelet is not who disrupts nodes through the API;
// - ServiceAccounts and users keep their name, the first MAX_NAMED_REQUESTERS distinct ones per
//   process; later ones count as "other" of their kind. Who makes disruptive node, Machine or
//   eviction calls is a handful of controllers and admins, so the cap is seldom reached, and
//   first-come (not top-N by count) keeps a requester's series stable, as a counter needs.
import { Counter, type Registry } from "prom-client";

export const WEBHOOK_REFUSALS_METRIC = "lockstep_webhook_refusals_total";
export const MAX_NAMED_REQUESTERS = 20;

export type RequesterKind = "serviceaccount" | "node" | "user";

/** Pure: the requester kind of a Kubernetes user name. */
export function requesterKind(username: string): RequesterKind {
  if (username.startsWith("system:serviceaccount:")) return "serviceaccount";
  if (username.startsWith("system:node:")) return "node";
  return "user";
}

/** Bounds the requester label: names the first `max` distinct requesters, "other" after. Pure but for what it remembers. */
export class RequesterLabels {
  private readonly named = new Set<string>();

  constructor(private readonly max = MAX_NAMED_REQUESTERS) {}

  of(username: string): { requester_kind: RequesterKind; requester: string } {
    const kind = requesterKind(username);
    if (kind === "node") return { requester_kind: kind, requester: "system:node" };
    if (username === "") return { requester_kind: kind, requester: "anonymous" };
    if (this.named.has(username)) return { requester_kind: kind, requester: username };
    if (this.named.size >= this.max) return { requester_kind: kind, requester: "other" };
    this.named.add(username);
    return { requester_kind: kind, requester: username };
  }
}

/** The counter on `registry` and the hook the webhook calls on each refusal (not dry runs: they disrupt nothing). */
export function webhookRefusals(registry: Registry, max = MAX_NAMED_REQUESTERS): (username: string, operation: string) => void {
  if (registry.getSingleMetric(WEBHOOK_REFUSALS_METRIC)) registry.removeSingleMetric(WEBHOOK_REFUSALS_METRIC);
  const counter = new Counter({
    name: WEBHOOK_REFUSALS_METRIC,
    help: `Disruptive requests the lease webhook refused, by requester (ServiceAccount or user name, the first ${max} named, later ones "other"; node identities as one) and operation.`,
    labelNames: ["requester_kind", "requester", "operation"],
    registers: [registry],
  });
  const labels = new RequesterLabels(max);
  return (username, operation) => counter.inc({ ...labels.of(username), operation });
}
