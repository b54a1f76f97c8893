// Cluster-version operator, pure core: ClusterVersion + ClusterOperators + pools in, writes out.
// Acceptance with the ClusterVersionUpgradeable precondition (mco-behaviors.md §5.5), operators
// updated group by group, the MCO step rendering new configs and retargeting pools, and history
// Completed once every operator is at the target (workers may still be rolling, as upstream).
import { rfc3339 } from "../clock.js";
import { MACHINE_CONFIG_OPERATOR, OPERATORS, operatorVersions, type OperatorDef } from "../generate/operators.js";
import { releaseImage, renderedName, sameMinor } from "../release.js";
import { stageSeconds, type Stage, type Timing } from "../timing.js";
import { conditionOf, setCondition, type Condition, type KubeObject } from "../types.js";

export type CvoAction =
  | { type: "cvStatus"; status: Record<string, unknown> }
  | { type: "coStatus"; name: string; status: Record<string, unknown> }
  | { type: "createRendered"; pool: string; version: string }
  | { type: "retargetPool"; pool: string; config: string };

export interface CvoView {
  cv: KubeObject;
  operators: KubeObject[];
  pools: KubeObject[];
  machineConfigs: ReadonlySet<string>;
}

export interface CvoOptions {
  seed: number;
  timing: Pick<Timing, "operator" | "cvoAccept">;
  /** Simulated seconds per real second: stages are simulated durations, stamps and `now` wall-clock (clock.ts). Default 1. */
  timeScale?: number;
}

export interface CvoResult {
  actions: CvoAction[];
  /** Virtual time of the next due step, if any. */
  wakeAt?: number;
}

/** Manifest count the progress message pretends the payload has. */
export const MANIFESTS = 859;

interface Blocker {
  name: string;
  reason: string;
  message: string;
}

export function upgradeableBlockers(operators: KubeObject[]): Blocker[] {
  const out: Blocker[] = [];
  for (const co of operators) {
    const c = conditionOf(co, "Upgradeable");
    if (c?.status === "False") out.push({ name: co.metadata.name, reason: c.reason ?? "", message: c.message ?? "" });
  }
  return out;
}

/** The ClusterVersion `Upgradeable` condition the CVO aggregates (4.10–4.22 wording). */
export function aggregateUpgradeable(blockers: Blocker[]): Condition | undefined {
  if (blockers.length === 0) return undefined;
  if (blockers.length === 1) {
    const b = blockers[0]!;
    return { type: "Upgradeable", status: "False", reason: b.reason, message: `Cluster operator ${b.name} should not be upgraded between minor versions: ${b.message}` };
  }
  return {
    type: "Upgradeable",
    status: "False",
    reason: "ClusterOperatorsNotUpgradeable",
    message: `Multiple cluster operators should not be upgraded between minor versions:\n${blockers.map((b) => `* Cluster operator ${b.name} should not be upgraded between minor versions: ${b.reason}: ${b.message}`).join("\n")}`,
  };
}

export function preconditionMessage(version: string, image: string, upgradeable: Condition): string {
  return `Preconditions failed for payload loaded version="${version}" image="${image}": Precondition "ClusterVersionUpgradeable" failed because of "${upgradeable.reason}": ${upgradeable.message}`;
}

const groups = (): OperatorDef[][] => {
  const m = new Map<number, OperatorDef[]>();
  for (const d of OPERATORS) m.set(d.group, [...(m.get(d.group) ?? []), d]);
  return [...m.entries()].sort((a, b) => a[0] - b[0]).map(([, v]) => v);
};

function coAt(co: KubeObject | undefined, target: string): boolean {
  const v = (co?.status?.versions ?? []).find((x: { name: string }) => x.name === "operator")?.version;
  return v === target && conditionOf(co, "Progressing")?.status !== "True";
}

const workingMsg = (target: string) => `Working towards ${target}`;

function withoutCondition(list: Condition[] | undefined, type: string): Condition[] {
  return (list ?? []).filter((c) => c.type !== type);
}

const sameJson = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

export function cvoStep(view: CvoView, nowDate: Date, o: CvoOptions): CvoResult {
  const now = rfc3339(nowDate);
  const cv = view.cv;
  const st = (cv.status ?? {}) as Record<string, any>;
  const history: any[] = st.history ?? [];
  const current: string = st.desired?.version ?? history[0]?.version ?? "";
  const du = cv.spec?.desiredUpdate as { version?: string; image?: string; force?: boolean } | undefined;
  const blockers = upgradeableBlockers(view.operators);
  const upgradeable = aggregateUpgradeable(blockers);
  let conditions: Condition[] = upgradeable ? setCondition(st.conditions, upgradeable, now) : withoutCondition(st.conditions, "Upgradeable");

  // 1. A new desired release: run the precondition, then accept (new Partial history entry on top).
  if (du?.version && du.version !== current) {
    const target = du.version;
    const image = du.image || releaseImage(target);
    const minor = current !== "" && !sameMinor(current, target);
    if (upgradeable && minor && !du.force) {
      conditions = setCondition(conditions, { type: "ReleaseAccepted", status: "False", reason: "PreconditionChecks", message: preconditionMessage(target, image, upgradeable) }, now);
      const status = { ...st, conditions };
      return { actions: sameJson(status, st) ? [] : [{ type: "cvStatus", status }] };
    }
    const prev = history.map((h, i) => (i === 0 && h.state === "Partial" && !h.completionTime ? { ...h, completionTime: now } : h));
    const entry: Record<string, unknown> = { state: "Partial", startedTime: now, completionTime: null, version: target, image, verified: false };
    if (upgradeable && minor && du.force) entry.acceptedRisks = `Forced through blocking failures: Precondition "ClusterVersionUpgradeable" failed because of "${upgradeable.reason}": ${upgradeable.message}`;
    conditions = setCondition(conditions, { type: "ReleaseAccepted", status: "True", reason: "PayloadLoaded", message: `Payload loaded version="${target}" image="${image}" architecture="amd64"` }, now);
    conditions = setCondition(conditions, { type: "Progressing", status: "True", reason: "", message: `${workingMsg(target)}: 0 of ${MANIFESTS} done (0% complete)` }, now);
    const status = { ...st, desired: { ...(st.desired ?? {}), version: target, image }, history: [entry, ...prev], observedGeneration: cv.metadata.generation ?? 1, conditions };
    return { actions: [{ type: "cvStatus", status }] };
  }

  const head = history[0];
  if (!head || head.state !== "Partial") {
    const status = { ...st, conditions };
    return { actions: sameJson(status, st) ? [] : [{ type: "cvStatus", status }] };
  }

  // 2. Rolling the operators towards head.version, one runlevel group at a time.
  const target: string = head.version;
  const actions: CvoAction[] = [];
  const byName = new Map(view.operators.map((c) => [c.metadata.name, c]));
  const all = groups();
  let doneOps = 0;
  let wakeAt: number | undefined;
  let waiting: string[] = [];
  const stageMs = (s: Stage, key: string) => (stageSeconds(s, o.seed, key) * 1000) / (o.timeScale ?? 1);
  const acceptedAt = Date.parse(head.startedTime) + stageMs(o.timing.cvoAccept, `accept/${target}`);
  for (const g of all) {
    const pending = g.filter((d) => !coAt(byName.get(d.name), target));
    doneOps += g.length - pending.length;
    if (pending.length === 0) continue;
    if (nowDate.getTime() < acceptedAt) {
      wakeAt = acceptedAt;
      waiting = pending.map((d) => d.name);
      break;
    }
    for (const d of pending) {
      const co = byName.get(d.name);
      if (!co) continue;
      const prog = conditionOf(co, "Progressing");
      const started = prog?.status === "True" && prog.message === workingMsg(target);
      if (!started) {
        const conds = setCondition(co.status?.conditions, { type: "Progressing", status: "True", reason: "", message: workingMsg(target) }, now);
        actions.push({ type: "coStatus", name: d.name, status: { ...co.status, conditions: conds } });
        if (d.name === MACHINE_CONFIG_OPERATOR) actions.push(...renderAndRetarget(view, target));
        wakeAt = Math.min(wakeAt ?? Infinity, nowDate.getTime() + stageMs(o.timing.operator, `${d.name}/${target}`));
        continue;
      }
      const due = Date.parse(prog.lastTransitionTime ?? now) + stageMs(o.timing.operator, `${d.name}/${target}`);
      let ready = nowDate.getTime() >= due;
      if (d.name === MACHINE_CONFIG_OPERATOR) {
        actions.push(...renderAndRetarget(view, target));
        // RequiredPools: the MCO reports the new version only once the master pool has rolled out.
        const master = view.pools.find((p) => p.metadata.name === "master");
        const want = renderedName("master", target);
        ready = ready && master?.status?.configuration?.name === want && master?.spec?.configuration?.name === want;
      }
      if (ready) {
        let conds = setCondition(co.status?.conditions, { type: "Progressing", status: "False", reason: "AsExpected", message: `Cluster version is ${target}` }, now);
        conds = setCondition(conds, { type: "Available", status: "True", reason: "AsExpected", message: "All is well" }, now);
        actions.push({ type: "coStatus", name: d.name, status: { ...co.status, conditions: conds, versions: operatorVersions(d, target) } });
      } else if (nowDate.getTime() < due) wakeAt = Math.min(wakeAt ?? Infinity, due);
    }
    waiting = pending.map((d) => d.name);
    break;
  }

  const total = OPERATORS.length;
  if (doneOps === total) {
    const hist = [{ ...head, state: "Completed", completionTime: now }, ...history.slice(1)];
    conditions = setCondition(conditions, { type: "Progressing", status: "False", reason: "", message: `Cluster version is ${target}` }, now);
    conditions = setCondition(conditions, { type: "Available", status: "True", reason: "", message: `Done applying ${target}` }, now);
    conditions = setCondition(conditions, { type: "Failing", status: "False", reason: "", message: "" }, now);
    actions.push({ type: "cvStatus", status: { ...st, history: hist, conditions } });
    return { actions };
  }
  const doneManifests = Math.floor((MANIFESTS * doneOps) / total);
  const pct = Math.floor((100 * doneOps) / total);
  const msg = `${workingMsg(target)}: ${doneManifests} of ${MANIFESTS} done (${pct}% complete)${waiting.length ? `, waiting on ${waiting.join(", ")}` : ""}`;
  conditions = setCondition(conditions, { type: "Progressing", status: "True", reason: waiting.length > 1 ? "ClusterOperatorsUpdating" : "ClusterOperatorUpdating", message: msg }, now);
  const status = { ...st, conditions };
  if (!sameJson(status, st)) actions.push({ type: "cvStatus", status });
  return { actions, wakeAt };
}

/** The MCO's render controller: a rendered config per pool at `target`, pools pointed at it. */
function renderAndRetarget(view: CvoView, target: string): CvoAction[] {
  const out: CvoAction[] = [];
  for (const p of view.pools) {
    const name = renderedName(p.metadata.name, target);
    if (!view.machineConfigs.has(name)) out.push({ type: "createRendered", pool: p.metadata.name, version: target });
    if (p.spec?.configuration?.name !== name) out.push({ type: "retargetPool", pool: p.metadata.name, config: name });
  }
  return out;
}
