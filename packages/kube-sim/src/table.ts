// Server-side printing (`Accept: application/json;as=Table;v=v1;g=meta.k8s.io`, what `kubectl get`
// asks for): nodes with kube-apiserver's printer (NAME STATUS ROLES AGE VERSION, the wide columns at
// priority 1), namespaces, configmaps, secrets, pods, leases, PDBs and Events with their usual columns,
// custom resources with their CRD's additionalPrinterColumns (JSONPath), and NAME/AGE for everything
// else. Pure: the clock is passed in.
import { eventsV1ToCore } from "./event-conversion.js";
import { isPlainObject } from "./json.js";
import type { KubeObject, PrinterColumn, ResourceType } from "./types.js";

export interface ColumnDefinition {
  name: string;
  type: string;
  format: string;
  description: string;
  priority: number;
}

/** Whether an Accept header asks for a meta.k8s.io/v1 Table. */
export function wantsTable(accept: string | undefined): boolean {
  if (!accept) return false;
  return accept.split(",").some((part) => {
    const params = new Map(
      part
        .split(";")
        .slice(1)
        .map((p) => p.trim().split("=") as [string, string]),
    );
    return params.get("as") === "Table" && params.get("v") === "v1" && params.get("g") === "meta.k8s.io";
  });
}

/** k8s.io/apimachinery's duration.HumanDuration: 45s, 3m20s, 5h10m, 3d4h, 2y30d. */
export function humanDuration(ms: number): string {
  const seconds = Math.trunc(ms / 1000);
  if (seconds < -1) return "<invalid>";
  if (seconds < 0) return "0s";
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.trunc(seconds / 60);
  if (minutes < 10) return seconds % 60 === 0 ? `${minutes}m` : `${minutes}m${seconds % 60}s`;
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.trunc(minutes / 60);
  if (hours < 8) return minutes % 60 === 0 ? `${hours}h` : `${hours}h${minutes % 60}m`;
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) return hours % 24 === 0 ? `${Math.trunc(hours / 24)}d` : `${Math.trunc(hours / 24)}d${hours % 24}h`;
  if (hours < 24 * 365 * 2) return `${Math.trunc(hours / 24)}d`;
  const years = Math.trunc(hours / 24 / 365);
  if (hours < 24 * 365 * 8) {
    const days = Math.trunc(hours / 24) % 365;
    return days === 0 ? `${years}y` : `${years}y${days}d`;
  }
  return `${years}y`;
}

function age(timestamp: unknown, now: Date): string {
  if (typeof timestamp !== "string" || timestamp === "") return "<unknown>";
  const t = Date.parse(timestamp);
  return Number.isNaN(t) ? "<invalid>" : humanDuration(now.getTime() - t);
}

// --- JSONPath, the subset CRD printer columns use: .a.b, .a\.b, [n], [*], ['k'], [?(@.x=="v")] ---

type Step = { key: string } | { index: number } | { all: true } | { filter: { path: string[]; op: "==" | "!="; value: string } };

export function parseJsonPath(expr: string): Step[] {
  const steps: Step[] = [];
  let i = expr.startsWith("{") && expr.endsWith("}") ? 1 : 0;
  const end = i === 1 ? expr.length - 1 : expr.length;
  if (expr[i] === "$") i++;
  const fail = () => new Error(`unsupported JSONPath ${JSON.stringify(expr)} at ${i}`);
  while (i < end) {
    if (expr[i] === ".") {
      i++;
      let key = "";
      while (i < end && expr[i] !== "." && expr[i] !== "[") {
        if (expr[i] === "\\" && i + 1 < end) i++;
        key += expr[i++];
      }
      if (key === "*") steps.push({ all: true });
      else if (key) steps.push({ key });
    } else if (expr[i] === "[") {
      const close = expr.indexOf("]", expr[i + 1] === "?" ? expr.indexOf(")", i) : i);
      if (close < 0) throw fail();
      const inner = expr.slice(i + 1, close).trim();
      i = close + 1;
      if (inner === "*") steps.push({ all: true });
      else if (/^-?\d+$/.test(inner)) steps.push({ index: Number(inner) });
      else if (/^'.*'$|^".*"$/.test(inner)) steps.push({ key: inner.slice(1, -1) });
      else {
        const m = /^\?\(@\.(.+?)\s*(==|!=)\s*(?:"([^"]*)"|'([^']*)'|([\w.-]+))\)$/.exec(inner);
        if (!m) throw fail();
        const path = m[1]!.split(/(?<!\\)\./).map((p) => p.replace(/\\\./g, "."));
        steps.push({ filter: { path, op: m[2] as "==" | "!=", value: m[3] ?? m[4] ?? m[5]! } });
      }
    } else throw fail();
  }
  return steps;
}

/** Every value the path selects, in document order. */
export function jsonPathValues(obj: unknown, steps: Step[]): unknown[] {
  let cur: unknown[] = [obj];
  for (const s of steps) {
    const next: unknown[] = [];
    for (const v of cur) {
      if ("key" in s) {
        if (isPlainObject(v) && v[s.key] !== undefined) next.push(v[s.key]);
      } else if ("index" in s) {
        if (Array.isArray(v)) {
          const x = v[s.index < 0 ? v.length + s.index : s.index];
          if (x !== undefined) next.push(x);
        }
      } else if ("all" in s) {
        if (Array.isArray(v)) next.push(...v);
        else if (isPlainObject(v)) next.push(...Object.values(v));
      } else {
        const items = Array.isArray(v) ? v : isPlainObject(v) ? Object.values(v) : [];
        for (const item of items) {
          const got = jsonPathValues(item, s.filter.path.map((key) => ({ key })))[0];
          const text = got === undefined ? undefined : typeof got === "string" ? got : JSON.stringify(got);
          if (s.filter.op === "==" ? text === s.filter.value : text !== undefined && text !== s.filter.value) next.push(item);
        }
      }
    }
    cur = next;
  }
  return cur;
}

// --- columns ---

const NAME: ColumnDefinition = {
  name: "Name",
  type: "string",
  format: "name",
  description: "Name must be unique within a namespace.",
  priority: 0,
};
const AGE_DESCRIPTION = "CreationTimestamp is a timestamp representing the server time when this object was created.";

const col = (name: string, description: string, priority = 0): ColumnDefinition => ({ name, type: "string", format: "", description, priority });

const NODE_COLUMNS: ColumnDefinition[] = [
  NAME,
  col("Status", "The status of the node"),
  col("Roles", "The roles of the node"),
  col("Age", AGE_DESCRIPTION),
  col("Version", "Kubelet Version reported by the node."),
  col("Internal-IP", "List of addresses reachable to the node.", 1),
  col("External-IP", "List of addresses reachable to the node.", 1),
  col("OS-Image", "OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 (wheezy)).", 1),
  col("Kernel-Version", "Kernel Version reported by the node from 'uname -r' (e.g. 3.16.0-0.bpo.4-amd64).", 1),
  col("Container-Runtime", "ContainerRuntime Version reported by the node through runtime remote API (e.g. containerd://1.4.2).", 1),
];

/** Roles from node-role.kubernetes.io/<role> labels and kubernetes.io/role, sorted, as kubectl's printer. */
function nodeRoles(labels: Record<string, string> | undefined): string {
  const roles = new Set<string>();
  for (const [k, v] of Object.entries(labels ?? {})) {
    if (k.startsWith("node-role.kubernetes.io/")) {
      const role = k.slice("node-role.kubernetes.io/".length);
      if (role) roles.add(role);
    } else if (k === "kubernetes.io/role" && v) roles.add(v);
  }
  return roles.size ? [...roles].sort().join(",") : "<none>";
}

function nodeRow(o: KubeObject, now: Date): unknown[] {
  const conditions: Array<{ type?: string; status?: string }> = Array.isArray(o.status?.conditions) ? o.status.conditions : [];
  const ready = conditions.find((c) => c?.type === "Ready");
  const status = [ready ? (ready.status === "True" ? "Ready" : "NotReady") : "Unknown"];
  if (o.spec?.unschedulable === true) status.push("SchedulingDisabled");
  const info = o.status?.nodeInfo ?? {};
  const addresses: Array<{ type?: string; address?: string }> = Array.isArray(o.status?.addresses) ? o.status.addresses : [];
  const address = (type: string) => addresses.find((a) => a?.type === type)?.address ?? "<none>";
  return [
    o.metadata?.name ?? "",
    status.join(","),
    nodeRoles(o.metadata?.labels),
    age(o.metadata?.creationTimestamp, now),
    info.kubeletVersion ?? "",
    address("InternalIP"),
    address("ExternalIP"),
    info.osImage || "<unknown>",
    info.kernelVersion || "<unknown>",
    info.containerRuntimeVersion || "<unknown>",
  ];
}

/** A printer-column cell as apiextensions-apiserver makes it: the first value, typed by the column. */
function printerCell(c: PrinterColumn, o: KubeObject, now: Date): unknown {
  let value: unknown;
  try {
    value = jsonPathValues(o, parseJsonPath(c.jsonPath))[0];
  } catch {
    return null;
  }
  if (value === undefined || value === null) return null;
  switch (c.type) {
    case "string":
      return typeof value === "string" ? value : JSON.stringify(value);
    case "integer":
      return typeof value === "number" ? Math.trunc(value) : null;
    case "number":
      return typeof value === "number" ? value : null;
    case "boolean":
      return typeof value === "boolean" ? value : null;
    case "date":
      return typeof value === "string" ? age(value, now) : null;
    default:
      return null;
  }
}

interface Printer {
  columns: ColumnDefinition[];
  row(o: KubeObject, now: Date): unknown[];
}

const count = (v: unknown) => (v && typeof v === "object" ? Object.keys(v).length : 0);
const AGE = col("Age", AGE_DESCRIPTION);
const ageOf = (o: KubeObject, now: Date) => age(o.metadata?.creationTimestamp, now);

function podRow(o: KubeObject, now: Date): unknown[] {
  const containers: unknown[] = Array.isArray(o.spec?.containers) ? o.spec.containers : [];
  const statuses: Array<{ ready?: boolean; restartCount?: number }> = Array.isArray(o.status?.containerStatuses) ? o.status.containerStatuses : [];
  const ready = statuses.filter((c) => c?.ready === true).length;
  const restarts = statuses.reduce((n, c) => n + (Number(c?.restartCount) || 0), 0);
  const status = o.metadata?.deletionTimestamp ? "Terminating" : (o.status?.reason ?? o.status?.phase ?? "Unknown");
  return [o.metadata?.name ?? "", `${ready}/${containers.length}`, status, restarts, ageOf(o, now), o.status?.podIP || "<none>", o.spec?.nodeName || "<none>"];
}

/**
 * Events, both versions (upstream's printEvent, on the internal form: an events.k8s.io/v1 Event is
 * read as the core/v1 one it is stored as): LAST SEEN TYPE REASON OBJECT MESSAGE, the rest wide.
 */
const EVENT_PRINTER: Printer = {
  columns: [
    col("Last Seen", "The time at which the most recent occurrence of this event was recorded."),
    col("Type", "Type of this event (Normal, Warning), new types could be added in the future"),
    col("Reason", "This should be a short, machine understandable string that gives the reason for the transition into the object's current status."),
    col("Object", "The object that this event is about."),
    col("Subobject", "If referring to a piece of an object instead of an entire object, this string should contain a valid JSON/Go field access statement.", 1),
    col("Source", "The component reporting this event. Should be a short machine understandable string.", 1),
    col("Message", "A human-readable description of the status of this operation."),
    col("First Seen", "The time at which the event was first recorded. (Time of server receipt is in TypeMeta.)", 1),
    col("Count", "The number of times this event has occurred.", 1),
    { ...col("Name", "Name must be unique within a namespace.", 1), format: "name" },
  ],
  row(served, now) {
    const o = served.apiVersion === "events.k8s.io/v1" ? eventsV1ToCore(served) : served;
    const first = o.firstTimestamp ? age(o.firstTimestamp, now) : age(o.eventTime, now);
    let last = o.lastTimestamp ? age(o.lastTimestamp, now) : first;
    let count = Number(o.count) || 0;
    if (isPlainObject(o.series)) {
      last = age(o.series.lastObservedTime, now);
      count = Number(o.series.count) || 0;
    } else if (count === 0) count = 1; // singletons of the new API carry no count
    const ref = isPlainObject(o.involvedObject) ? o.involvedObject : {};
    const kind = String(ref.kind ?? "").toLowerCase();
    const target = ref.name ? `${kind}/${String(ref.name)}` : kind;
    const component = o.source?.component || o.reportingComponent || "";
    const instance = o.source?.host || o.reportingInstance || "";
    return [
      last,
      o.type ?? "",
      o.reason ?? "",
      target,
      ref.fieldPath ?? "",
      instance ? `${component}, ${instance}` : component,
      String(o.message ?? "").trim(),
      first,
      count,
      o.metadata?.name ?? "",
    ];
  },
};

/** kube-apiserver's printers for the other built-ins kube-sim serves (their usual columns). */
const BUILTIN_PRINTERS: Record<string, Printer> = {
  "/namespaces": { columns: [NAME, col("Status", "The status of the namespace"), AGE], row: (o, now) => [o.metadata?.name ?? "", o.status?.phase ?? "", ageOf(o, now)] },
  "/configmaps": { columns: [NAME, { ...col("Data", "Number of data entries."), type: "integer" }, AGE], row: (o, now) => [o.metadata?.name ?? "", count(o.data) + count(o.binaryData), ageOf(o, now)] },
  "/secrets": {
    columns: [NAME, col("Type", "The type of the secret"), { ...col("Data", "The number of entries in the secret"), type: "integer" }, AGE],
    row: (o, now) => [o.metadata?.name ?? "", o.type ?? "", count(o.data), ageOf(o, now)],
  },
  "/pods": {
    columns: [
      NAME,
      col("Ready", "The aggregate readiness state of this pod for accepting traffic."),
      col("Status", "The aggregate status of the containers in this pod."),
      { ...col("Restarts", "The number of times the containers in this pod have been restarted."), type: "integer" },
      AGE,
      col("IP", "IP address allocated to the pod.", 1),
      col("Node", "Name of the node this pod is running on.", 1),
    ],
    row: podRow,
  },
  "/events": EVENT_PRINTER,
  "events.k8s.io/events": EVENT_PRINTER,
  "coordination.k8s.io/leases": {
    columns: [NAME, col("Holder", "HolderIdentity contains the identity of the holder of a current lease."), AGE],
    row: (o, now) => [o.metadata?.name ?? "", o.spec?.holderIdentity ?? "", ageOf(o, now)],
  },
  "policy/poddisruptionbudgets": {
    columns: [
      NAME,
      col("Min Available", "The minimum number of pods that must be available"),
      col("Max Unavailable", "The maximum number of pods that may be unavailable"),
      { ...col("Allowed Disruptions", "Calculated number of pods that may be disrupted at this time"), type: "integer" },
      AGE,
    ],
    row: (o, now) => [o.metadata?.name ?? "", String(o.spec?.minAvailable ?? "N/A"), String(o.spec?.maxUnavailable ?? "N/A"), o.status?.disruptionsAllowed ?? 0, ageOf(o, now)],
  },
};

function printerFor(t: ResourceType, version: string): Printer {
  if (t.group === "" && t.plural === "nodes") return { columns: NODE_COLUMNS, row: nodeRow };
  const builtin = t.custom ? undefined : BUILTIN_PRINTERS[`${t.group}/${t.plural}`];
  if (builtin) return builtin;
  const custom = t.custom ? t.printerColumns?.[version] : undefined;
  // A CRD without columns gets Age, as apiextensions-apiserver defaults them.
  const columns: PrinterColumn[] = custom?.length ? custom : [{ name: "Age", type: "date", jsonPath: ".metadata.creationTimestamp", description: AGE_DESCRIPTION }];
  return {
    columns: [
      NAME,
      ...columns.map((c) => ({
        name: c.name,
        type: c.type,
        format: c.format ?? "",
        description: c.description ?? `Custom resource definition column (in JSONPath format): ${c.jsonPath}`,
        priority: c.priority ?? 0,
      })),
    ],
    row: (o, now) => [o.metadata?.name ?? "", ...columns.map((c) => printerCell(c, o, now))],
  };
}

export type IncludeObject = "None" | "Metadata" | "Object";

/** The `includeObject` parameter (default Metadata). */
export function includeObjectOf(q: URLSearchParams): IncludeObject {
  const v = q.get("includeObject");
  return v === "None" || v === "Object" ? v : "Metadata";
}

/**
 * A meta.k8s.io/v1 Table of objects (a list, or one object from a GET). `listMeta` is the list's
 * metadata (resourceVersion, continue, remainingItemCount).
 */
export function toTable(t: ResourceType, version: string, objects: KubeObject[], now: Date, include: IncludeObject, listMeta: Record<string, unknown> = {}): unknown {
  const p = printerFor(t, version);
  return {
    kind: "Table",
    apiVersion: "meta.k8s.io/v1",
    metadata: listMeta,
    columnDefinitions: p.columns,
    rows: objects.map((o) => {
      const row: Record<string, unknown> = { cells: p.row(o, now) };
      if (include === "Object") row.object = o;
      else if (include === "Metadata") row.object = { kind: "PartialObjectMetadata", apiVersion: "meta.k8s.io/v1", metadata: o.metadata ?? {} };
      return row;
    }),
  };
}
