import { describe, expect, it } from "vitest";
import { builtinTypes } from "./builtins.js";
import { crdToType } from "./crds.js";
import { humanDuration, jsonPathValues, parseJsonPath, toTable, wantsTable } from "./table.js";
import type { KubeObject } from "./types.js";

const NOW = new Date("2026-01-10T12:00:00Z");
const nodes = builtinTypes().find((t) => t.plural === "nodes")!;
const s = 1000;

describe("humanDuration (apimachinery's)", () => {
  it.each([
    [-5 * s, "<invalid>"],
    [-1 * s, "0s"],
    [0, "0s"],
    [119 * s, "119s"],
    [125 * s, "2m5s"],
    [600 * s, "10m"],
    [179 * 60 * s, "179m"],
    [3 * 3600 * s, "3h"],
    [(5 * 60 + 7) * 60 * s, "5h7m"],
    [47 * 3600 * s, "47h"],
    [(3 * 24 + 4) * 3600 * s, "3d4h"],
    [9 * 24 * 3600 * s, "9d"],
    [(2 * 365 + 30) * 24 * 3600 * s, "2y30d"],
    [9 * 365 * 24 * 3600 * s, "9y"],
  ])("%d ms is %s", (ms, text) => expect(humanDuration(ms)).toBe(text));
});

describe("the JSONPath of printer columns", () => {
  const obj = {
    metadata: { labels: { "machine.openshift.io/instance-type": "m5.xlarge" } },
    spec: { files: [{ path: "/a" }, { path: "/b" }] },
    status: { conditions: [{ type: "Updated", status: "False" }, { type: "Ready", status: "True" }] },
  };
  it.each([
    [".spec.files[*].path", ["/a", "/b"]],
    [".spec.files[1].path", ["/b"]],
    ['.status.conditions[?(@.type=="Ready")].status', ["True"]],
    [".status.conditions[?(@.type!='Ready')].type", ["Updated"]],
    [".metadata.labels.machine\\.openshift\\.io/instance-type", ["m5.xlarge"]],
    [".spec['files'][0].path", ["/a"]],
    [".spec.missing", []],
  ])("%s", (path, values) => expect(jsonPathValues(obj, parseJsonPath(path))).toEqual(values));

  it("refuses what it does not understand", () => {
    expect(() => parseJsonPath(".a[?(@.x > 1)]")).toThrow(/unsupported JSONPath/);
  });
});

describe("wantsTable", () => {
  it("recognises kubectl's Accept header and nothing else", () => {
    expect(wantsTable("application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json")).toBe(true);
    expect(wantsTable("application/json;as=Table;v=v1beta1;g=meta.k8s.io")).toBe(false);
    expect(wantsTable("application/json")).toBe(false);
    expect(wantsTable(undefined)).toBe(false);
  });
});

describe("node Table", () => {
  const node = (name: string, extra: Partial<KubeObject>): KubeObject => ({
    apiVersion: "v1",
    kind: "Node",
    metadata: { name, creationTimestamp: "2026-01-10T11:55:00Z", ...(extra.metadata ?? {}) },
    spec: extra.spec ?? {},
    status: extra.status ?? {},
  });

  it("prints status, roles, age, version and the wide columns as kube-apiserver does", () => {
    const table = toTable(
      nodes,
      "v1",
      [
        node("m", {
          metadata: { labels: { "node-role.kubernetes.io/master": "", "node-role.kubernetes.io/control-plane": "", "kubernetes.io/role": "infra" } },
          status: { conditions: [{ type: "Ready", status: "True" }], nodeInfo: { kubeletVersion: "v1.31.4" }, addresses: [{ type: "InternalIP", address: "10.0.0.1" }] },
        }),
        node("w", { spec: { unschedulable: true }, status: { conditions: [{ type: "Ready", status: "Unknown" }] } }),
        node("x", {}),
      ],
      NOW,
      "None",
    ) as any;
    expect(table.columnDefinitions.map((c: any) => [c.name, c.priority])).toEqual([
      ["Name", 0],
      ["Status", 0],
      ["Roles", 0],
      ["Age", 0],
      ["Version", 0],
      ["Internal-IP", 1],
      ["External-IP", 1],
      ["OS-Image", 1],
      ["Kernel-Version", 1],
      ["Container-Runtime", 1],
    ]);
    expect(table.rows.map((r: any) => r.cells)).toEqual([
      ["m", "Ready", "control-plane,infra,master", "5m", "v1.31.4", "10.0.0.1", "<none>", "<unknown>", "<unknown>", "<unknown>"],
      ["w", "NotReady,SchedulingDisabled", "<none>", "5m", "", "<none>", "<none>", "<unknown>", "<unknown>", "<unknown>"],
      ["x", "Unknown", "<none>", "5m", "", "<none>", "<none>", "<unknown>", "<unknown>", "<unknown>"],
    ]);
    expect(table.rows[0].object).toBeUndefined();
  });

  it("includes the object's metadata by default and the whole object when asked", () => {
    const n = node("m", { metadata: { labels: { a: "b" } } });
    expect((toTable(nodes, "v1", [n], NOW, "Metadata") as any).rows[0].object).toEqual({ kind: "PartialObjectMetadata", apiVersion: "meta.k8s.io/v1", metadata: n.metadata });
    expect((toTable(nodes, "v1", [n], NOW, "Object") as any).rows[0].object).toBe(n);
  });
});

describe("custom resource Table", () => {
  const crd = (columns?: unknown[]): KubeObject => ({
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: "widgets.example.com" },
    spec: {
      group: "example.com",
      scope: "Cluster",
      names: { plural: "widgets", singular: "widget", kind: "Widget" },
      versions: [{ name: "v1", served: true, storage: true, schema: { openAPIV3Schema: { type: "object" } }, additionalPrinterColumns: columns }],
    },
  });
  const widget = { metadata: { name: "w1", creationTimestamp: "2026-01-10T09:00:00Z" }, spec: { size: 3, ratio: 1.5, on: true, tags: ["a", "b"] } };

  it("types each cell by its column and leaves missing values null", () => {
    const t = crdToType(
      crd([
        { name: "Size", type: "integer", jsonPath: ".spec.size", priority: 1 },
        { name: "Ratio", type: "number", jsonPath: ".spec.ratio" },
        { name: "On", type: "boolean", jsonPath: ".spec.on" },
        { name: "Tag", type: "string", jsonPath: ".spec.tags[*]", description: "first tag" },
        { name: "Missing", type: "string", jsonPath: ".status.x" },
        { name: "Created", type: "date", jsonPath: ".metadata.creationTimestamp" },
      ]),
    );
    const table = toTable(t, "v1", [widget], NOW, "None") as any;
    expect(table.columnDefinitions.map((c: any) => c.name)).toEqual(["Name", "Size", "Ratio", "On", "Tag", "Missing", "Created"]);
    expect(table.columnDefinitions[1].priority).toBe(1);
    expect(table.columnDefinitions[4].description).toBe("first tag");
    expect(table.columnDefinitions[5].description).toBe("Custom resource definition column (in JSONPath format): .status.x");
    expect(table.rows[0].cells).toEqual(["w1", 3, 1.5, true, "a", null, "3h"]);
  });

  it("shows NAME and AGE when the CRD has no columns", () => {
    const table = toTable(crdToType(crd()), "v1", [widget], NOW, "None") as any;
    expect(table.columnDefinitions.map((c: any) => [c.name, c.type])).toEqual([
      ["Name", "string"],
      ["Age", "date"],
    ]);
    expect(table.rows[0].cells).toEqual(["w1", "3h"]);
  });
});

describe("other built-in printers", () => {
  const type = (plural: string) => builtinTypes().find((t) => t.plural === plural)!;
  const meta = { name: "x", creationTimestamp: "2026-01-10T11:59:00Z" };
  const table = (plural: string, o: KubeObject) => toTable(type(plural), "v1", [o], NOW, "None") as any;
  const header = (plural: string) => table(plural, { metadata: meta }).columnDefinitions.map((c: any) => c.name);

  it("configmaps and secrets count their entries", () => {
    expect(header("configmaps")).toEqual(["Name", "Data", "Age"]);
    expect(table("configmaps", { metadata: meta, data: { a: "1", b: "2" }, binaryData: { c: "AA==" } }).rows[0].cells).toEqual(["x", 3, "60s"]);
    expect(header("secrets")).toEqual(["Name", "Type", "Data", "Age"]);
    expect(table("secrets", { metadata: meta, type: "Opaque", data: { a: "MQ==" } }).rows[0].cells).toEqual(["x", "Opaque", 1, "60s"]);
  });

  it("pods: ready containers, status (Terminating when deleted), restarts, and IP / node at priority 1", () => {
    const pod = {
      metadata: meta,
      spec: { containers: [{ name: "a" }, { name: "b" }], nodeName: "worker-0" },
      status: { phase: "Running", podIP: "10.128.0.5", containerStatuses: [{ ready: true, restartCount: 2 }, { ready: false, restartCount: 1 }] },
    };
    expect(table("pods", pod).rows[0].cells).toEqual(["x", "1/2", "Running", 3, "60s", "10.128.0.5", "worker-0"]);
    expect(table("pods", { ...pod, metadata: { ...meta, deletionTimestamp: "2026-01-10T12:00:00Z" } }).rows[0].cells[2]).toBe("Terminating");
    expect(table("pods", { metadata: meta }).rows[0].cells).toEqual(["x", "0/0", "Unknown", 0, "60s", "<none>", "<none>"]);
  });

  it("namespaces, leases and PDBs", () => {
    expect(table("namespaces", { metadata: meta, status: { phase: "Active" } }).rows[0].cells).toEqual(["x", "Active", "60s"]);
    expect(table("leases", { metadata: meta, spec: { holderIdentity: "me" } }).rows[0].cells).toEqual(["x", "me", "60s"]);
    expect(table("poddisruptionbudgets", { metadata: meta, spec: { maxUnavailable: 1 }, status: { disruptionsAllowed: 1 } }).rows[0].cells).toEqual(["x", "N/A", "1", 1, "60s"]);
  });

  it("events, either version: last seen (the series' when folded), type, reason, object, message; source, count and name wide", () => {
    const t = (group: string) => builtinTypes().find((x) => x.plural === "events" && x.group === group)!;
    const v1 = {
      apiVersion: "events.k8s.io/v1",
      metadata: { name: "worker-0.1", namespace: "default" },
      eventTime: "2026-01-10T11:00:00.000000Z",
      series: { count: 7, lastObservedTime: "2026-01-10T11:59:30.000000Z" },
      reportingController: "lockstep.io/lease-coordinator",
      reportingInstance: "lc-0",
      reason: "UpdateRefused",
      regarding: { kind: "Node", name: "worker-0" },
      note: " refused ",
      type: "Warning",
    };
    const v1Table = toTable(t("events.k8s.io"), "v1", [v1], NOW, "None") as any;
    expect(v1Table.columnDefinitions.filter((c: any) => c.priority === 0).map((c: any) => c.name)).toEqual(["Last Seen", "Type", "Reason", "Object", "Message"]);
    expect(v1Table.rows[0].cells).toEqual(["30s", "Warning", "UpdateRefused", "node/worker-0", "", "lockstep.io/lease-coordinator, lc-0", "refused", "60m", 7, "worker-0.1"]);
    const core = {
      apiVersion: "v1",
      metadata: { name: "e", namespace: "default" },
      involvedObject: { kind: "Pod", name: "p", fieldPath: "spec.containers{a}" },
      source: { component: "kubelet" },
      firstTimestamp: "2026-01-10T11:58:00Z",
      reason: "Pulled",
      message: "pulled",
      type: "Normal",
    };
    expect((toTable(t(""), "v1", [core], NOW, "None") as any).rows[0].cells).toEqual(["2m", "Normal", "Pulled", "pod/p", "spec.containers{a}", "kubelet", "pulled", "2m", 1, "e"]);
  });

  it("anything else: NAME and AGE", () => {
    expect(header("serviceaccounts")).toEqual(["Name", "Age"]);
  });
});
