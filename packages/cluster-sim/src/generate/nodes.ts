// Node objects with MCO annotations, kubelet conditions and nodeInfo.
import { A, MCD, ROLE_LABEL, SIM_LABEL, ZONE_LABEL } from "../constants.js";
import { kubeVersion, rhcosRelease } from "../release.js";
import { stableHex } from "../rng.js";
import type { Condition, KubeObject } from "../types.js";

export interface NodeParams {
  name: string;
  roles: string[];
  zone: string;
  region: string;
  instanceType: string;
  config: string;
  version: string;
  topology: string;
  now: string;
}

export function kubeletConditions(now: string, transition: string): Condition[] {
  return [
    { type: "MemoryPressure", status: "False", reason: "KubeletHasSufficientMemory", message: "kubelet has sufficient memory available", lastHeartbeatTime: now, lastTransitionTime: transition },
    { type: "DiskPressure", status: "False", reason: "KubeletHasNoDiskPressure", message: "kubelet has no disk pressure", lastHeartbeatTime: now, lastTransitionTime: transition },
    { type: "PIDPressure", status: "False", reason: "KubeletHasSufficientPID", message: "kubelet has sufficient PID available", lastHeartbeatTime: now, lastTransitionTime: transition },
    { type: "Ready", status: "True", reason: "KubeletReady", message: "kubelet is posting ready status", lastHeartbeatTime: now, lastTransitionTime: transition },
  ];
}

export function nodeInfo(name: string, version: string): Record<string, string> {
  const rel = rhcosRelease(version);
  const kv = kubeVersion(version);
  return {
    architecture: "amd64",
    bootID: uuid("boot", name, version),
    containerRuntimeVersion: `cri-o://${kv}-${rel.split(".")[0]}.rhaos`,
    kernelVersion: "5.14.0-284.54.1.el9_2.x86_64",
    kubeProxyVersion: `v${kv}+${stableHex(7, "kube", kv)}`,
    kubeletVersion: `v${kv}+${stableHex(7, "kube", kv)}`,
    machineID: stableHex(32, "machine", name),
    operatingSystem: "linux",
    osImage: `Red Hat Enterprise Linux CoreOS ${rel} (Plow)`,
    systemUUID: uuid("system", name),
  };
}

export function uuid(...parts: string[]): string {
  const h = stableHex(32, ...parts);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

export function node(p: NodeParams): KubeObject {
  const labels: Record<string, string> = {
    "beta.kubernetes.io/arch": "amd64",
    "beta.kubernetes.io/os": "linux",
    "kubernetes.io/arch": "amd64",
    "kubernetes.io/hostname": p.name.split(".")[0]!,
    "kubernetes.io/os": "linux",
    "node.kubernetes.io/instance-type": p.instanceType,
    "node.openshift.io/os_id": "rhcos",
    "topology.kubernetes.io/region": p.region,
    [ZONE_LABEL]: p.zone,
    [SIM_LABEL]: "true",
  };
  for (const r of p.roles) labels[ROLE_LABEL(r)] = "";
  const ip = `10.0.${stableHex(2, "ip3", p.name).charCodeAt(0) % 250}.${parseInt(stableHex(2, "ip4", p.name), 16) % 250}`;
  return {
    apiVersion: "v1",
    kind: "Node",
    metadata: {
      name: p.name,
      labels,
      annotations: {
        [A.controlPlaneTopology]: p.topology,
        [A.currentConfig]: p.config,
        [A.desiredConfig]: p.config,
        [A.desiredDrain]: `uncordon-${p.config}`,
        [A.lastAppliedDrain]: `uncordon-${p.config}`,
        [A.reason]: "",
        [A.state]: MCD.done,
        [A.postConfigAction]: "",
        "volumes.kubernetes.io/controller-managed-attach-detach": "true",
      },
    },
    spec: p.roles.includes("master") ? { taints: [{ key: "node-role.kubernetes.io/master", effect: "NoSchedule" }] } : {},
    status: {
      addresses: [
        { type: "InternalIP", address: ip },
        { type: "Hostname", address: p.name },
      ],
      capacity: { cpu: "4", "ephemeral-storage": "125293548Ki", memory: "16105720Ki", pods: "250" },
      allocatable: { cpu: "3500m", "ephemeral-storage": "114396791822", memory: "14954744Ki", pods: "250" },
      conditions: kubeletConditions(p.now, p.now),
      daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
      nodeInfo: nodeInfo(p.name, p.version),
    },
  };
}
