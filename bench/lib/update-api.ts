// The Update Status API writer in the system bench: its CRDs installed into kube-sim, and its write
// counters read from the status-aggregator's /metrics, next to the node rows it recomputed.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";

const CRDS = join(import.meta.dirname, "..", "..", "deploy", "helm", "lockstep", "crds");

/** Creates the chart's update.openshift.io CRDs through the API (as `helm install` would). */
export async function installUpdateApiCrds(apiUrl: string): Promise<void> {
  for (const f of readdirSync(CRDS).filter((x) => x.endsWith(".update.openshift.io.yaml"))) {
    const res = await fetch(`${apiUrl}/apis/apiextensions.k8s.io/v1/customresourcedefinitions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(parse(readFileSync(join(CRDS, f), "utf8"))),
    });
    if (!res.ok && res.status !== 409) throw new Error(`creating ${f}: HTTP ${res.status} ${await res.text()}`);
  }
}

export interface WriterCounters {
  /** Writes of NodeProgressInsight objects (create, status, delete). */
  nodeWrites: number;
  /** Every Update Status API write. */
  allWrites: number;
  /** Node rows the aggregator recomputed with a different result (node state changes it saw). */
  nodeChanges: number;
}

/** Reads the counters from a Prometheus text endpoint. */
export async function writerCounters(metricsUrl: string): Promise<WriterCounters> {
  const text = await (await fetch(metricsUrl)).text();
  const out: WriterCounters = { nodeWrites: 0, allWrites: 0, nodeChanges: 0 };
  for (const line of text.split("\n")) {
    const m = /^(\w+)(\{[^}]*\})?\s+([0-9.eE+-]+)$/.exec(line);
    if (!m) continue;
    const value = Number(m[3]);
    if (m[1] === "lockstep_update_api_writes_total") {
      out.allWrites += value;
      if (m[2]?.includes('kind="NodeProgressInsight"')) out.nodeWrites += value;
    }
    if (m[1] === "lockstep_status_node_evaluations_total") out.nodeChanges += value;
  }
  return out;
}
