// generateCluster(spec): every object of a freshly generated, settled OpenShift-like cluster.
import { MACHINE_API_NAMESPACE, MCO_NAMESPACE, REQUIRED_FOR_UPGRADE, SIM_LABEL, SIM_WORKLOAD_LABEL } from "../constants.js";
import { releaseImage, renderedName } from "../release.js";
import { stableHex } from "../rng.js";
import type { ClusterSpec } from "../spec.js";
import { rfc3339 } from "../clock.js";
import type { KubeObject } from "../types.js";
import { assignPools, computePoolStatus } from "../actors/pool-status.js";
import { bootImagesConfigMap } from "./bootimages.js";
import { configurationSource, renderedMachineConfig, sourceMachineConfigs } from "./machineconfigs.js";
import { node, uuid } from "./nodes.js";
import { clusterOperator, OPERATORS } from "./operators.js";
import { infraName, infrastructure, machineSet, nodeName, zones } from "./platform.js";
import { workloadObjects } from "./workloads.js";

export interface GeneratedCluster {
  infraName: string;
  /** In creation order: namespaces, config objects, MachineConfigs, pools, MachineSets, nodes, PDBs, pods. */
  objects: KubeObject[];
  /** Pool name → role list it renders from (the simulator's CVO renders new configs from it). */
  poolRoles: Record<string, string[]>;
}

export function poolRolesOf(spec: ClusterSpec): Record<string, string[]> {
  const roles: Record<string, string[]> = { master: ["master"] };
  for (const p of spec.pools) roles[p.name] = p.name === "worker" ? ["worker"] : ["worker", p.name];
  return roles;
}

export function machineConfigPool(name: string, roles: string[], nodeSelector: Record<string, string>, maxUnavailable: number | string, paused: boolean, config: string): KubeObject {
  const selector =
    roles.length === 1
      ? { matchLabels: { "machineconfiguration.openshift.io/role": roles[0]! } }
      : { matchExpressions: [{ key: "machineconfiguration.openshift.io/role", operator: "In", values: roles }] };
  const labels: Record<string, string> = { [`pools.operator.machineconfiguration.openshift.io/${name}`]: "", [SIM_LABEL]: "true" };
  if (name === "master" || name === "worker") labels["machineconfiguration.openshift.io/mco-built-in"] = "";
  if (name === "master") labels[REQUIRED_FOR_UPGRADE] = "";
  return {
    apiVersion: "machineconfiguration.openshift.io/v1",
    kind: "MachineConfigPool",
    metadata: { name, labels },
    spec: {
      configuration: { name: config, source: configurationSource([roles[0]!]) },
      machineConfigSelector: selector,
      nodeSelector: { matchLabels: nodeSelector },
      paused,
      ...(maxUnavailable !== 1 ? { maxUnavailable } : {}),
    },
  };
}

/** `timeScale` compresses the generated past as the simulation's pacing (clock.ts), so durations read from history match the run. */
export function clusterVersion(spec: ClusterSpec, now: Date, timeScale = 1): KubeObject {
  const t = (daysAgo: number) => rfc3339(new Date(now.getTime() - (daysAgo * 86_400_000) / timeScale));
  const versions = [spec.version, ...spec.history];
  const history = versions.map((v, i) => ({
    state: "Completed",
    version: v,
    image: releaseImage(v),
    verified: i < versions.length - 1,
    // Newest first, as the CVO keeps it: one update a week, 72 minutes each.
    startedTime: t((i + 1) * 7),
    completionTime: t((i + 1) * 7 - 0.05),
    acceptedRisks: undefined,
  })).map(({ acceptedRisks: _, ...h }) => h);
  const settled = history[0]!.completionTime;
  const [maj, min, pat] = spec.version.split(".").map((x) => parseInt(x, 10));
  const available = [1, 2, 3].map((d) => `${maj}.${min}.${(pat ?? 0) + d}`).map((v) => ({ version: v, image: releaseImage(v), channels: [spec.channel], url: `https://access.redhat.com/errata/RHBA-2024:${stableHex(4, v).replace(/[a-f]/g, "7")}` }));
  return {
    apiVersion: "config.openshift.io/v1",
    kind: "ClusterVersion",
    metadata: { name: "version" },
    spec: {
      clusterID: uuid("cluster", spec.name, String(spec.seed)),
      channel: spec.channel,
      upstream: "https://api.openshift.com/api/upgrades_info/v1/graph",
      ...(spec.history.length ? { desiredUpdate: { version: spec.version, image: releaseImage(spec.version) } } : {}),
    },
    status: {
      desired: { version: spec.version, image: releaseImage(spec.version), channels: [spec.channel] },
      history,
      observedGeneration: spec.history.length ? 2 : 1,
      versionHash: Buffer.from(stableHex(16, "vh", spec.version), "hex").toString("base64").slice(0, 11) + "=",
      availableUpdates: available,
      capabilities: { enabledCapabilities: ["Build", "CSISnapshot", "Console", "DeploymentConfig", "ImageRegistry", "Insights", "MachineAPI", "NodeTuning", "Storage", "baremetal", "marketplace", "openshift-samples"] },
      conditions: [
        { type: "RetrievedUpdates", status: "True", lastTransitionTime: settled },
        { type: "ReleaseAccepted", status: "True", reason: "PayloadLoaded", message: `Payload loaded version="${spec.version}" image="${releaseImage(spec.version)}" architecture="amd64"`, lastTransitionTime: settled },
        { type: "Available", status: "True", message: `Done applying ${spec.version}`, lastTransitionTime: settled },
        { type: "Failing", status: "False", lastTransitionTime: settled },
        { type: "Progressing", status: "False", message: `Cluster version is ${spec.version}`, lastTransitionTime: settled },
      ],
    },
  };
}

const namespace = (name: string): KubeObject => ({ apiVersion: "v1", kind: "Namespace", metadata: { name, labels: { [SIM_LABEL]: "true" } } });

/** `now` is the wall clock; the past (history, settled conditions) lies `timeScale` times closer to it (clock.ts). */
export function generateCluster(spec: ClusterSpec, now: Date = new Date(), timeScale = 1): GeneratedCluster {
  if (!(timeScale > 0) || !Number.isFinite(timeScale)) throw new Error(`time scale must be a positive number, got ${timeScale}`);
  const ts = rfc3339(now);
  const infra = infraName(spec);
  const poolRoles = poolRolesOf(spec);
  const topology = spec.masters === 1 ? "SingleReplica" : "HighlyAvailable";
  const objects: KubeObject[] = [];
  const namespaces = new Set([MCO_NAMESPACE, MACHINE_API_NAMESPACE, ...spec.workloads.map((w) => w.namespace)]);
  for (const ns of namespaces) objects.push(namespace(ns));

  objects.push(infrastructure(spec, infra, topology));
  objects.push(clusterVersion(spec, now, timeScale));
  for (const def of OPERATORS) objects.push(clusterOperator(def, spec.version, rfc3339(new Date(now.getTime() - 3_600_000 / timeScale))));
  objects.push(bootImagesConfigMap(spec.version));

  // Sources per role, then rendered configs for the previous and current release of every pool.
  for (const role of ["master", "worker"]) objects.push(...sourceMachineConfigs(role, spec.name, spec.version));
  const releases = [...new Set([spec.history[0], spec.version].filter((v): v is string => !!v))];
  for (const [pool, roles] of Object.entries(poolRoles)) for (const v of releases) objects.push(renderedMachineConfig(pool, roles, spec.name, v));

  const zs = zones(spec.platform, spec.region);
  const nodes: KubeObject[] = [];
  let index = 0;
  for (let i = 0; i < spec.masters; i++) {
    nodes.push(node({ name: nodeName(spec, infra, "master", zs[i % zs.length]!, index++), roles: ["master", "control-plane"], zone: zs[i % zs.length]!, region: spec.region, instanceType: "m6i.2xlarge", config: renderedName("master", spec.version), version: spec.version, topology, now: ts }));
  }
  let workerIndex = 0;
  for (const p of spec.pools) {
    const roles = poolRoles[p.name]!;
    const perZone = zs.map((_, zi) => Math.floor(p.size / zs.length) + (zi < p.size % zs.length ? 1 : 0));
    zs.forEach((z, zi) => {
      if (perZone[zi]! > 0 || p.size === 0) objects.push(machineSet(spec, infra, p.name, z, perZone[zi]!));
    });
    for (let i = 0; i < p.size; i++) {
      const z = zs[i % zs.length]!;
      const n = node({ name: nodeName(spec, infra, roles[roles.length - 1]!, z, workerIndex++), roles, zone: z, region: spec.region, instanceType: "m6i.xlarge", config: renderedName(p.name, spec.version), version: spec.version, topology, now: ts });
      for (const [k, v] of Object.entries(p.nodeSelector)) n.metadata.labels![k] = v;
      nodes.push(n);
    }
  }

  const pools = [
    machineConfigPool("master", poolRoles.master!, { "node-role.kubernetes.io/master": "" }, 1, false, renderedName("master", spec.version)),
    ...spec.pools.map((p) => machineConfigPool(p.name, poolRoles[p.name]!, p.nodeSelector, p.maxUnavailable, p.paused, renderedName(p.name, spec.version))),
  ];
  const members = assignPools(pools, nodes);
  for (const pool of pools) pool.status = computePoolStatus(pool, members.get(pool.metadata.name) ?? [], ts);
  objects.push(...pools, ...nodes);
  objects.push(...workloadObjects(spec, members));
  return { infraName: infra, objects, poolRoles };
}

export { SIM_WORKLOAD_LABEL };
