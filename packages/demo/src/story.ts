// The demo's scripted story: an upgrade to the next minor with a paused pool, an admin maintenance
// lease and a drain blocked by a PDB; the MCO (which, as the real one, asks for no lease) refused by
// the lease webhook on the node under maintenance, and so is a `kubectl drain` of it, the holder
// named; the next minor refused with the skew reason; the lease released, the node and the pool
// finished; update.completed; the next minor allowed; MachineSets patched. Each step is checked
// against what the services answer (gRPC), publish (events) and the API server refuses, so the same
// story is a test.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { delimiter, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { MCO_CONTROLLER_SA, planPool, serviceAccountUser, type KubeObject } from "@lockstep/cluster-sim";
import { OperationType, type AcquireRequest, type UpdateStatus } from "@lockstep/contracts";
import type { Clients } from "./clients.js";
import type { Environment } from "./environment.js";
import type { EventLog } from "./events.js";

export interface StoryVersions {
  current: string;
  target: string;
  next: string;
}

export interface StepResult {
  name: string;
  ok: boolean;
  detail: string;
  ms: number;
}

export interface StoryContext {
  env: Environment;
  clients: Clients;
  events: EventLog;
  versions: StoryVersions;
  /** Real-time budget per wait, ms. */
  waitMs: number;
  signal: AbortSignal;
  onStep?(index: number, name: string): void;
  onResult?(r: StepResult): void;
  /**
   * A wait has lasted `elapsedMs` (called every `reportEveryMs`): what it waits for and why it may
   * be stuck, so a stalled step never looks like a silent hang.
   */
  onWaiting?(what: string, elapsedMs: number, reason: string): void;
  /** Default 15 s. */
  reportEveryMs?: number;
}

export interface Step {
  name: string;
  run(c: StoryContext, s: StoryState): Promise<string>;
}

export interface StoryState {
  maintenanceNode: string;
  blockedNode: string;
  workers: string[];
  infra: string[];
  masters: string[];
  machineSets: number;
}

export class StepFailed extends Error {}

/** Thrown by a wait's check: not there yet, and how far it got (shown when the step stalls). */
export class NotYet extends Error {}

/** All of `names` in phase Updated, or NotYet saying how many are. */
function allUpdated(st: UpdateStatus, names: string[], what: string): true {
  const done = names.filter((n) => nodeRecord(st, n)?.phase === "Updated").length;
  if (done < names.length) throw new NotYet(`${done} of ${names.length} ${what} Updated`);
  return true;
}

/** Why a wait may be stuck: what is down (from the supervisor), else the last error, else nothing yet. */
function stallReason(c: StoryContext, lastErr: unknown): string {
  const down = c.env.down();
  if (down.length) return down.join("; ");
  if (lastErr instanceof NotYet) return lastErr.message;
  if (lastErr) return `last answer: ${(lastErr as Error).message.split("\n")[0]}`;
  return "condition not met yet";
}

export async function waitUntil<T>(c: StoryContext, what: string, check: () => Promise<T | undefined | false>): Promise<T> {
  const t0 = Date.now();
  const deadline = t0 + c.waitMs;
  const every = c.reportEveryMs ?? 15_000;
  let nextReport = t0 + every;
  let lastErr: unknown;
  while (!c.signal.aborted) {
    try {
      const v = await check();
      if (v) return v;
      lastErr = undefined;
    } catch (err) {
      lastErr = err;
    }
    if (Date.now() > deadline) throw new StepFailed(`timed out after ${Math.round(c.waitMs / 1000)} s waiting for ${what} (${stallReason(c, lastErr)})`);
    if (Date.now() >= nextReport) {
      c.onWaiting?.(what, Date.now() - t0, stallReason(c, lastErr));
      nextReport += every;
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new StepFailed("stopped");
}

async function status(c: StoryContext): Promise<UpdateStatus> {
  const res = await c.clients.call(c.clients.status, c.clients.status.getUpdateStatus, { omitNodes: false });
  if (!res.status) throw new Error("no status yet");
  return res.status;
}

const nodeRecord = (st: UpdateStatus, name: string) => st.nodes.find((n) => n.name === name)?.record;

/**
 * A node's MESSAGE cell as a line of its own. The cell writes the node's own name as `<node>` (oc's
 * table does: the NAME column has it); out of the table the name goes back in.
 */
export function nodeMessageLine(node: string, messageCell: string): string {
  return (messageCell.split("\n")[0] ?? "").split("<node>").join(node);
}

/** The maintenance lease's holder: every refusal must name it. */
export const ADMIN = "admin@example.com";

/** The admin's Maintenance lease on `node`: an hour, no waiting, no preemption. */
export function maintenanceLease(node: string): AcquireRequest {
  return { node, operation: OperationType.OPERATION_TYPE_MAINTENANCE, holder: ADMIN, reason: "replacing a failed disk", durationSeconds: 3600, waitSeconds: 0, force: false };
}
const MCC_USER = serviceAccountUser(MCO_CONTROLLER_SA);

/** kubectl: $KUBECTL_BIN, the repository's .tools/kubectl, else the first on PATH; undefined if none. */
export function findKubectl(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (env.KUBECTL_BIN) return existsSync(env.KUBECTL_BIN) ? env.KUBECTL_BIN : undefined;
  const repoTools = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..", ".tools", "kubectl");
  if (existsSync(repoTools)) return repoTools;
  for (const dir of (env.PATH ?? "").split(delimiter)) if (dir && existsSync(join(dir, "kubectl"))) return join(dir, "kubectl");
  return undefined;
}

function runCommand(bin: string, args: string[], timeoutMs: number): Promise<{ code: number; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, args, { stdio: ["ignore", "pipe", "pipe"], timeout: timeoutMs });
    let out = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr.on("data", (d: Buffer) => (out += d.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code: code ?? -1, out }));
  });
}

/** One request to the API server as any client makes it (no credentials: kube-sim's admin); status and Status message. */
async function apiCall(c: StoryContext, method: string, path: string, body: object, contentType = "application/json"): Promise<{ code: number; message: string }> {
  const res = await fetch(`${c.env.kube.url}${path}`, { method, headers: { "content-type": contentType, accept: "application/json" }, body: JSON.stringify(body) });
  const text = await res.text();
  let message = text;
  try {
    message = String((JSON.parse(text) as { message?: unknown }).message ?? text);
  } catch {
    // not a Status: keep the text
  }
  return { code: res.status, message };
}

/** What `oc get mcp <pool>` shows: its columns as name=value. */
export function mcpLine(pool: KubeObject | undefined): string {
  if (!pool) return "pool not found";
  const cond = (t: string) => (pool.status?.conditions ?? []).find((x: { type: string }) => x.type === t)?.status ?? "";
  const st = pool.status ?? {};
  return `oc get mcp ${pool.metadata.name}: UPDATED=${cond("Updated")} UPDATING=${cond("Updating")} DEGRADED=${cond("Degraded")} MACHINECOUNT=${st.machineCount} READYMACHINECOUNT=${st.readyMachineCount} UPDATEDMACHINECOUNT=${st.updatedMachineCount} DEGRADEDMACHINECOUNT=${st.degradedMachineCount}`;
}

/** The line of `text` naming the holder, trimmed for the log. */
const namingHolder = (text: string) => text.split("\n").find((l) => l.includes(ADMIN))?.trim();

export const STEPS: Step[] = [
  {
    name: "services up, state synced, cluster upgradeable",
    async run(c, s) {
      const total = s.masters.length + s.workers.length + s.infra.length;
      await waitUntil(c, `${total} nodes in the status`, async () => {
        const n = (await status(c)).nodes.length;
        if (n !== total) throw new NotYet(`${n} of ${total} nodes so far`);
        return true;
      });
      const r = await waitUntil(c, "a skew report", async () => (await c.clients.call(c.clients.skew, c.clients.skew.getSkewReport, {})).report);
      return `${total} nodes; control plane ${r.controlPlaneVersion}; upgradeable=${r.upgradeable}`;
    },
  },
  {
    name: "admin takes a maintenance lease on a worker",
    async run(c, s) {
      const res = await c.clients.call(c.clients.lease, c.clients.lease.acquire, maintenanceLease(s.maintenanceNode));
      if (!res.granted) throw new StepFailed(`maintenance lease denied: ${res.deniedReason}`);
      return `${s.maintenanceNode} held by ${ADMIN} (Maintenance)`;
    },
  },
  {
    name: "preflight warns about the node under maintenance",
    async run(c, s) {
      const res = await c.clients.call(c.clients.lease, c.clients.lease.preflightUpgrade, { targetVersion: c.versions.target });
      const w = res.warnings.find((x) => x.node === s.maintenanceNode);
      if (!w) throw new StepFailed(`no preflight warning for ${s.maintenanceNode}: ${JSON.stringify(res.warnings)}`);
      return w.message;
    },
  },
  {
    name: "a PodDisruptionBudget blocks the drain of another worker",
    async run(c, s) {
      await c.env.sim.inject("drain-blocked", { nodes: [s.blockedNode] });
      return `${s.blockedNode} runs a pod whose PDB allows no disruption`;
    },
  },
  {
    name: `upgrade to the next minor starts`,
    async run(c) {
      const check = await c.clients.call(c.clients.skew, c.clients.skew.checkUpgrade, { targetVersion: c.versions.target, force: false });
      if (!check.allowed) throw new StepFailed(`upgrade to ${c.versions.target} refused: ${check.message}`);
      await c.env.sim.upgrade(c.versions.target);
      await waitUntil(c, "the update to start", async () => (await status(c)).updating);
      return `${c.versions.current} → ${c.versions.target} (${check.kind}, allowed)`;
    },
  },
  {
    name: "control plane updated",
    async run(c, s) {
      await waitUntil(c, "the masters on the target", async () => allUpdated(await status(c), s.masters, "masters"));
      return `${s.masters.length} masters on ${c.versions.target}`;
    },
  },
  {
    name: "failed drain reported",
    async run(c, s) {
      const rec = await waitUntil(c, `${s.blockedNode} degraded`, async () => {
        const r = nodeRecord(await status(c), s.blockedNode);
        if (r?.assessment !== "Degraded") throw new NotYet(`${s.blockedNode} is ${r?.assessment ?? "unknown"}/${r?.phase ?? "unknown"}`);
        return r;
      });
      return `${s.blockedNode}: ${nodeMessageLine(s.blockedNode, rec.messageCell)}`;
    },
  },
  {
    name: "node under maintenance left alone and reported",
    async run(c, s) {
      const st = await waitUntil(c, "the other workers updated", async () => {
        const st = await status(c);
        const others = s.workers.filter((w) => w !== s.maintenanceNode && w !== s.blockedNode);
        return allUpdated(st, others, "other workers") && st;
      });
      const rec = nodeRecord(st, s.maintenanceNode);
      if (rec?.phase === "Updated" || rec?.isUpdating) throw new StepFailed(`${s.maintenanceNode} was updated under maintenance`);
      const insight = st.health.find((h) => h.lockstep && h.scopeResources.includes(`nodes/${s.maintenanceNode}`));
      return `${s.maintenanceNode}: ${rec?.assessment}/${rec?.phase}${insight ? `; ${insight.summary}` : ""}`;
    },
  },
  {
    name: "the MCO's update of the node under maintenance refused by the lease webhook, holder named",
    async run(c, s) {
      // The MCO asks for no lease: it sets desiredConfig and the API server refuses it (kube-sim's
      // record of the webhook's answer, also in the event log as admission.denied).
      const call = await waitUntil(c, `a refused update of ${s.maintenanceNode}`, async () => {
        const d = c.env.kube.admission.calls.find((x) => x.outcome === "denied" && x.resource.resource === "nodes" && x.name === s.maintenanceNode && x.userInfo.username === MCC_USER);
        if (!d) throw new NotYet(`no refused request from ${MCC_USER} on ${s.maintenanceNode} yet`);
        return d;
      });
      if (!call.message?.includes(`leased to ${ADMIN}`) || !call.message.includes(`may not start an update of ${s.maintenanceNode}`)) throw new StepFailed(`refusal does not name the holder and the update: ${call.message}`);
      const logged = c.events.events.find((e) => e.fact === "admission.denied" && e.text.includes(`node ${s.maintenanceNode} by ${MCC_USER}`));
      if (!logged) throw new StepFailed("the refusal is not in the event log");
      // Requests, not webhook calls: one request may be refused by more than one webhook.
      const n = c.env.kube.admission.calls.filter((x) => x.outcome === "denied" && x.webhook === call.webhook && x.name === s.maintenanceNode && x.userInfo.username === MCC_USER).length;
      const node = c.env.sim.world.get("node", s.maintenanceNode);
      const desired = node?.metadata.annotations?.["machineconfiguration.openshift.io/desiredConfig"];
      const pool = c.env.sim.world.get("pool", "worker")?.spec?.configuration?.name;
      if (desired === pool) throw new StepFailed(`${s.maintenanceNode} was given the new config under maintenance`);
      return `HTTP ${call.code}, ${n} tries so far (the MCO retries with backoff; no event, no pool condition): ${call.message}; ${mcpLine(c.env.sim.world.get("pool", "worker"))}`;
    },
  },
  {
    name: "a kubectl drain of the node under maintenance refused, holder named",
    async run(c, s) {
      const node = s.maintenanceNode;
      const out: string[] = [];
      const kubectl = findKubectl();
      if (kubectl) {
        // kubectl drain cordons first, then evicts: the webhook refuses the cordon.
        const r = await runCommand(kubectl, ["--kubeconfig", c.env.kubeconfigPath, "drain", node, "--ignore-daemonsets", "--delete-emptydir-data", "--timeout=30s"], 60_000);
        if (r.code === 0) throw new StepFailed(`kubectl drain ${node} succeeded under maintenance: ${r.out}`);
        const line = namingHolder(r.out);
        if (!line) throw new StepFailed(`kubectl drain ${node} failed without naming the holder: ${r.out.trim()}`);
        out.push(`kubectl drain: ${line}`);
      } else {
        // No kubectl: the same cordon kubectl drain sends first.
        const r = await apiCall(c, "PATCH", `/api/v1/nodes/${node}`, { spec: { unschedulable: true } }, "application/strategic-merge-patch+json");
        if (r.code < 400 || !r.message.includes(ADMIN)) throw new StepFailed(`cordon of ${node}: HTTP ${r.code} ${r.message}`);
        out.push(`cordon (no kubectl found, the API call kubectl drain makes): HTTP ${r.code}: ${r.message}`);
      }
      // Its evictions, as kubectl drain sends them for each pod once the node is cordoned.
      const pods: KubeObject[] = [...(c.env.sim.world.podsByNode.get(node)?.values() ?? [])].filter((p) => !p.metadata.deletionTimestamp);
      if (pods.length === 0) throw new StepFailed(`no pod on ${node} to evict`);
      const p = pods[0]!.metadata;
      const ev = await apiCall(c, "POST", `/api/v1/namespaces/${p.namespace}/pods/${p.name}/eviction`, { apiVersion: "policy/v1", kind: "Eviction", metadata: { name: p.name, namespace: p.namespace } });
      if (ev.code < 400 || !ev.message.includes(ADMIN) || !ev.message.includes(`may not evict pod ${p.namespace}/${p.name}`)) throw new StepFailed(`eviction of ${p.namespace}/${p.name}: HTTP ${ev.code} ${ev.message}`);
      out.push(`eviction of ${p.namespace}/${p.name}: HTTP ${ev.code}: ${ev.message}`);
      if (c.env.sim.world.get("node", node)?.spec?.unschedulable === true) throw new StepFailed(`${node} was cordoned under maintenance`);
      return out.join("; ");
    },
  },
  {
    name: "paused pool untouched",
    async run(c, s) {
      const st = await status(c);
      const moved = s.infra.filter((n) => nodeRecord(st, n)?.phase !== "Paused");
      if (moved.length) throw new StepFailed(`paused pool nodes moved: ${moved.join(", ")}`);
      return `${s.infra.length} infra nodes Excluded/Paused`;
    },
  },
  {
    name: "next minor upgrade refused with the skew reason",
    async run(c) {
      const r = await waitUntil(c, "the next minor to be refused", async () => {
        const r = await c.clients.call(c.clients.skew, c.clients.skew.checkUpgrade, { targetVersion: c.versions.next, force: false });
        return !r.allowed ? r : undefined;
      });
      return `${c.versions.next}: refused — ${r.reasons.join(", ")}: ${r.message.split("\n")[0]}`;
    },
  },
  {
    name: "maintenance ends, drain unblocked, workers finish",
    async run(c, s) {
      const rel = await c.clients.call(c.clients.lease, c.clients.lease.release, { node: s.maintenanceNode, holder: ADMIN });
      if (!rel.released) throw new StepFailed("maintenance lease not released");
      await c.env.sim.clear("drain-blocked", [s.blockedNode]);
      await waitUntil(c, "every worker updated", async () => allUpdated(await status(c), s.workers, "workers"));
      return `${s.workers.length} workers on ${c.versions.target}`;
    },
  },
  {
    name: "paused pool unpaused and finished",
    async run(c, s) {
      const skew = await c.clients.call(c.clients.skew, c.clients.skew.getSkewReport, {});
      const still = skew.report?.laggingPools.map((p) => `${p.pool}: ${p.reason}`).join(", ");
      await c.env.sim.setPaused("infra", false);
      await waitUntil(c, "the infra pool updated", async () => allUpdated(await status(c), s.infra, "infra nodes"));
      return `lagging before: ${still || "none"}; ${s.infra.length} infra nodes updated`;
    },
  },
  {
    name: "update.completed published",
    async run(c) {
      await waitUntil(c, "update.completed", async () => c.events.count("update.completed", (m) => m.version === c.versions.target) > 0);
      return c.events.events.find((e) => e.fact === "update.completed" && e.message.version === c.versions.target)!.text;
    },
  },
  {
    name: "next minor upgrade allowed",
    async run(c) {
      const r = await waitUntil(c, "the next minor to be allowed", async () => {
        const r = await c.clients.call(c.clients.skew, c.clients.skew.checkUpgrade, { targetVersion: c.versions.next, force: false });
        return r.allowed ? r : undefined;
      });
      return `${c.versions.next}: allowed (${r.kind})`;
    },
  },
  {
    name: "MachineSets patched to the new boot image",
    async run(c, s) {
      await waitUntil(c, `${s.machineSets} bootimage.updated events`, async () => {
        const n = c.events.count("bootimage.updated");
        if (n < s.machineSets) throw new NotYet(`${n} of ${s.machineSets} seen`);
        return true;
      });
      return c.events.events.filter((e) => e.fact === "bootimage.updated").map((e) => e.text).join("; ");
    },
  },
];

/**
 * The workers in the order the MCO's node controller starts them (zone, then age: planPool). It
 * stops a pass at the first node it may not update, so a node under maintenance early in this order
 * holds back the ones after it (docs/lease-enforcement.md): the admin's node is the last one.
 */
export function rolloutOrder(workers: KubeObject[]): string[] {
  const pool: KubeObject = { apiVersion: "machineconfiguration.openshift.io/v1", kind: "MachineConfigPool", metadata: { name: "worker" }, spec: { configuration: { name: "next" }, maxUnavailable: workers.length } };
  return planPool(pool, workers).candidates.map((n) => n.metadata.name);
}

export function storyState(env: Environment): StoryState {
  const members = env.sim.poolMembers();
  const names = (pool: string) => (members.get(pool) ?? []).map((n) => n.metadata!.name!).sort();
  const workers = names("worker");
  const order = rolloutOrder(members.get("worker") ?? []);
  const msType = env.kube.store.registry.resolve("machine.openshift.io", "v1beta1", "machinesets");
  const machineSets = msType ? env.kube.store.entries(msType).length : 0;
  return {
    masters: names("master"),
    workers,
    infra: names("infra"),
    maintenanceNode: order[order.length - 1]!,
    blockedNode: order[0]!,
    machineSets: Math.max(1, machineSets),
  };
}

/** Runs the steps in order; stops at the first failure. */
export async function runStory(c: StoryContext, steps: Step[] = STEPS): Promise<StepResult[]> {
  const s = storyState(c.env);
  // What the API server refuses (the lease webhook's answers) belongs in the same log.
  c.events.followAdmission(c.env.kube.admission);
  const results: StepResult[] = [];
  for (const [i, step] of steps.entries()) {
    if (c.signal.aborted) break;
    c.onStep?.(i, step.name);
    const t0 = Date.now();
    let r: StepResult;
    try {
      r = { name: step.name, ok: true, detail: await step.run(c, s), ms: Date.now() - t0 };
    } catch (err) {
      r = { name: step.name, ok: false, detail: err instanceof Error ? err.message : String(err), ms: Date.now() - t0 };
    }
    results.push(r);
    c.onResult?.(r);
    if (!r.ok) break;
  }
  return results;
}
