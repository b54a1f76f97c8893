// Platform specifics: zones, node names, MachineSet providerSpecs and the Infrastructure object.
import { MACHINE_API_NAMESPACE, ROLE_LABEL, SIM_LABEL } from "../constants.js";
import { stableHex } from "../rng.js";
import type { ClusterSpec, Platform } from "../spec.js";
import type { KubeObject } from "../types.js";
import { bootImageRef } from "./bootimages.js";

const PLATFORM_TYPE: Record<Platform, string> = { aws: "AWS", gcp: "GCP", azure: "Azure", vsphere: "VSphere" };

export function zones(platform: Platform, region: string): string[] {
  switch (platform) {
    case "aws":
      return ["a", "b", "c"].map((z) => `${region}${z}`);
    case "gcp":
      return ["a", "b", "c"].map((z) => `${region}-${z}`);
    case "azure":
      return ["1", "2", "3"].map((z) => `${region}-${z}`);
    case "vsphere":
      return ["fd-a", "fd-b"];
  }
}

/** Short zone token used in machine names (a, b, c / 1, 2, 3 / fd-a). */
export function zoneToken(platform: Platform, zone: string): string {
  if (platform === "aws") return zone.slice(-1);
  if (platform === "gcp" || platform === "azure") return zone.split("-").pop()!;
  return zone;
}

export function infraName(spec: ClusterSpec): string {
  return `${spec.name}-${stableHex(5, "infra", spec.name, spec.seed).replace(/[0-9]/g, (d) => "abcdefghij"[Number(d)]!)}`;
}

const SUFFIX_CHARS = "bcdfghjklmnpqrstvwxz2456789";
function suffix(...parts: Array<string | number>): string {
  const h = stableHex(10, ...parts);
  let s = "";
  for (let i = 0; i < 5; i++) s += SUFFIX_CHARS[parseInt(h.slice(i * 2, i * 2 + 2), 16) % SUFFIX_CHARS.length];
  return s;
}

/** A node name the way each platform's machine controller names them. `index` is global and unique. */
export function nodeName(spec: ClusterSpec, infra: string, role: string, zone: string, index: number): string {
  if (spec.platform === "aws") {
    // Private DNS names of the instance's IP; masters in 10.0.0-63, workers spread over 10.0.64-255.
    const ip = role === "master" ? index : 256 + index;
    const third = (ip >> 8) & 0xff;
    const host = `ip-10-${(ip >> 16) & 0xff}-${third}-${ip & 0xff}`;
    return spec.region === "us-east-1" ? `${host}.ec2.internal` : `${host}.${spec.region}.compute.internal`;
  }
  if (role === "master") return `${infra}-master-${index}`;
  return `${infra}-${role}-${zoneToken(spec.platform, zone)}-${suffix(infra, role, index)}`;
}

function providerSpec(spec: ClusterSpec, infra: string, pool: string, zone: string): Record<string, unknown> {
  const image = bootImageRef(spec.platform, spec.bootImageVersion, spec.region, infra, zone);
  const userDataSecret = { name: "worker-user-data" };
  const credentialsSecret = { name: `${spec.platform}-cloud-credentials` };
  switch (spec.platform) {
    case "aws":
      return {
        apiVersion: "machine.openshift.io/v1beta1",
        kind: "AWSMachineProviderConfig",
        ...image,
        instanceType: pool === "infra" ? "m6i.2xlarge" : "m6i.xlarge",
        placement: { region: spec.region, availabilityZone: zone },
        blockDevices: [{ ebs: { encrypted: true, iops: 0, volumeSize: 120, volumeType: "gp3" } }],
        iamInstanceProfile: { id: `${infra}-worker-profile` },
        securityGroups: [{ filters: [{ name: "tag:Name", values: [`${infra}-node`] }] }],
        subnet: { filters: [{ name: "tag:Name", values: [`${infra}-subnet-private-${zone}`] }] },
        tags: [{ name: `kubernetes.io/cluster/${infra}`, value: "owned" }],
        userDataSecret,
        credentialsSecret,
        metadata: { creationTimestamp: null },
      };
    case "gcp":
      return {
        apiVersion: "machine.openshift.io/v1beta1",
        kind: "GCPMachineProviderSpec",
        canIPForward: false,
        disks: [{ autoDelete: true, boot: true, ...image, labels: null, sizeGb: 128, type: "pd-ssd" }],
        machineType: "n2-standard-4",
        networkInterfaces: [{ network: `${infra}-network`, subnetwork: `${infra}-worker-subnet` }],
        projectID: `${spec.name}-project`,
        region: spec.region,
        zone,
        serviceAccounts: [{ email: `${infra}-w@${spec.name}-project.iam.gserviceaccount.com`, scopes: ["https://www.googleapis.com/auth/cloud-platform"] }],
        userDataSecret,
        credentialsSecret: { name: "gcp-cloud-credentials" },
        metadata: { creationTimestamp: null },
      };
    case "azure":
      return {
        apiVersion: "machine.openshift.io/v1beta1",
        kind: "AzureMachineProviderSpec",
        ...image,
        location: spec.region,
        zone: zone.split("-").pop(),
        vmSize: "Standard_D4s_v3",
        osDisk: { diskSizeGB: 128, managedDisk: { storageAccountType: "Premium_LRS" }, osType: "Linux" },
        resourceGroup: `${infra}-rg`,
        networkResourceGroup: `${infra}-rg`,
        vnet: `${infra}-vnet`,
        subnet: `${infra}-worker-subnet`,
        publicIP: false,
        userDataSecret,
        credentialsSecret: { name: "azure-cloud-credentials", namespace: MACHINE_API_NAMESPACE },
        metadata: { creationTimestamp: null },
      };
    case "vsphere":
      return {
        apiVersion: "machine.openshift.io/v1beta1",
        kind: "VSphereMachineProviderSpec",
        ...image,
        numCPUs: 4,
        numCoresPerSocket: 4,
        memoryMiB: 16384,
        diskGiB: 120,
        network: { devices: [{ networkName: "VM Network" }] },
        workspace: vsphereWorkspace(spec, infra, zone),
        userDataSecret,
        credentialsSecret: { name: "vsphere-cloud-credentials" },
        metadata: { creationTimestamp: null },
      };
  }
}

function vsphereWorkspace(spec: ClusterSpec, infra: string, fd: string): Record<string, string> {
  return {
    server: "vcenter.sim.example.com",
    datacenter: spec.region,
    datastore: `/${spec.region}/datastore/${fd}-datastore`,
    folder: `/${spec.region}/vm/${infra}`,
    resourcePool: `/${spec.region}/host/${fd}-cluster/Resources`,
  };
}

export function machineSet(spec: ClusterSpec, infra: string, pool: string, zone: string, replicas: number): KubeObject {
  const name = `${infra}-${pool}-${zone}`;
  const labels = { "machine.openshift.io/cluster-api-cluster": infra, "machine.openshift.io/cluster-api-machineset": name };
  return {
    apiVersion: "machine.openshift.io/v1beta1",
    kind: "MachineSet",
    metadata: {
      name,
      namespace: MACHINE_API_NAMESPACE,
      labels: { "machine.openshift.io/cluster-api-cluster": infra, [SIM_LABEL]: "true" },
      annotations: { "capacity.cluster-autoscaler.kubernetes.io/labels": "kubernetes.io/arch=amd64", "machine.openshift.io/memoryMb": "16384", "machine.openshift.io/vCPU": "4" },
    },
    spec: {
      replicas,
      selector: { matchLabels: labels },
      template: {
        metadata: { labels: { ...labels, "machine.openshift.io/cluster-api-machine-role": pool, "machine.openshift.io/cluster-api-machine-type": pool } },
        spec: {
          metadata: { labels: pool === "worker" ? {} : { [ROLE_LABEL(pool)]: "" } },
          providerSpec: { value: providerSpec(spec, infra, pool, zone) },
        },
      },
    },
    status: { replicas, availableReplicas: replicas, readyReplicas: replicas, fullyLabeledReplicas: replicas, observedGeneration: 1 },
  };
}

export function infrastructure(spec: ClusterSpec, infra: string, controlPlaneTopology: string): KubeObject {
  const type = PLATFORM_TYPE[spec.platform];
  const platformSpec: Record<string, unknown> = { type };
  const platformStatus: Record<string, unknown> = { type };
  switch (spec.platform) {
    case "aws":
      platformSpec.aws = {};
      platformStatus.aws = { region: spec.region, resourceTags: [] };
      break;
    case "gcp":
      platformSpec.gcp = {};
      platformStatus.gcp = { projectID: `${spec.name}-project`, region: spec.region };
      break;
    case "azure":
      platformSpec.azure = {};
      platformStatus.azure = { cloudName: "AzurePublicCloud", resourceGroupName: `${infra}-rg`, networkResourceGroupName: `${infra}-rg` };
      break;
    case "vsphere": {
      const fds = zones("vsphere", spec.region);
      platformSpec.vsphere = {
        vcenters: [{ server: "vcenter.sim.example.com", port: 443, datacenters: [spec.region] }],
        failureDomains: fds.map((fd) => {
          const ws = vsphereWorkspace(spec, infra, fd);
          return {
            name: fd,
            region: "region-a",
            zone: fd,
            server: ws.server,
            topology: { datacenter: ws.datacenter, computeCluster: `/${spec.region}/host/${fd}-cluster`, networks: ["VM Network"], datastore: ws.datastore, resourcePool: ws.resourcePool, folder: ws.folder },
          };
        }),
      };
      platformStatus.vsphere = { apiServerInternalIPs: ["10.0.0.5"], ingressIPs: ["10.0.0.6"] };
      break;
    }
  }
  return {
    apiVersion: "config.openshift.io/v1",
    kind: "Infrastructure",
    metadata: { name: "cluster" },
    spec: { cloudConfig: { name: "" }, platformSpec },
    status: {
      infrastructureName: infra,
      platform: type,
      platformStatus,
      apiServerURL: `https://api.${spec.name}.sim.example.com:6443`,
      apiServerInternalURI: `https://api-int.${spec.name}.sim.example.com:6443`,
      etcdDiscoveryDomain: "",
      controlPlaneTopology,
      infrastructureTopology: controlPlaneTopology,
      cpuPartitioning: "None",
    },
  };
}
