// Boot images: the CoreOS stream document of a release (mco-behaviors.md §3.9) and the golden
// `coreos-bootimages` ConfigMap (§3.8); the per-platform image a MachineSet boots.
import { MCO_NAMESPACE } from "../constants.js";
import { parseVersion, rhcosRelease } from "../release.js";
import { stableHex } from "../rng.js";
import type { Platform } from "../spec.js";
import type { KubeObject } from "../types.js";

export const AWS_REGIONS = ["us-east-1", "us-east-2", "us-west-1", "us-west-2", "eu-west-1", "eu-central-1", "ap-southeast-1", "ap-northeast-1"];

export function amiId(version: string, region: string, arch = "x86_64"): string {
  return `ami-0${stableHex(16, "ami", rhcosRelease(version), region, arch)}`;
}

export function gcpImage(version: string): { project: string; name: string; family: string } {
  const rel = rhcosRelease(version);
  const [a, b] = rel.split(".");
  return { project: "rhcos-cloud", name: `rhcos-${rel.replace(/\./g, "-")}-gcp-x86-64`, family: `rhcos-${a}-${b}` };
}

export function azureImage(version: string): { publisher: string; offer: string; sku: string; version: string } {
  const rel = rhcosRelease(version);
  const v = parseVersion(version);
  return { publisher: "azureopenshift", offer: "aro4", sku: `aro_4${v.minor}`, version: `4${v.minor}.${rel.split(".")[1]}.${rel.split(".")[2]!.slice(0, 8)}` };
}

export function streamName(version: string): string {
  const v = parseVersion(version);
  return v.minor >= 19 || v.major > 4 ? "rhcos-9.6" : v.minor >= 13 ? "rhcos-4.1x-9.2" : "rhcos-4.1x";
}

/** CoreOS stream metadata for a release (only the fields the boot image controller reads, §3.9). */
export function coreosStream(version: string): Record<string, unknown> {
  const rel = rhcosRelease(version);
  const gcp = gcpImage(version);
  const az = azureImage(version);
  const regions = (arch: string) => Object.fromEntries(AWS_REGIONS.map((r) => [r, { release: rel, image: amiId(version, r, arch) }]));
  return {
    stream: streamName(version),
    metadata: { "last-modified": "2026-01-01T00:00:00Z", generator: "lockstep cluster-sim" },
    architectures: {
      x86_64: {
        artifacts: {
          aws: { release: rel, formats: {} },
          gcp: { release: rel, formats: {} },
          vmware: {
            release: rel,
            formats: { ova: { disk: { location: `https://rhcos.mirror.openshift.com/art/storage/prod/streams/${streamName(version)}/builds/${rel}/x86_64/rhcos-${rel}-vmware.x86_64.ova`, sha256: stableHex(64, "ova", rel) } } },
          },
        },
        images: {
          aws: { regions: regions("x86_64") },
          gcp: { release: rel, project: gcp.project, name: gcp.name, family: gcp.family },
        },
        "rhel-coreos-extensions": {
          marketplace: {
            azure: {
              "no-purchase-plan": {
                hyperVGen1: { publisher: az.publisher, offer: az.offer, sku: `${az.sku}-gen1`, version: az.version },
                hyperVGen2: { publisher: az.publisher, offer: az.offer, sku: `${az.sku}-v2`, version: az.version },
              },
              ocp: { hyperVGen2: { publisher: "redhat", offer: "rh-ocp-worker", sku: "rh-ocp-worker", version: `${az.version}00` } },
            },
          },
        },
      },
      aarch64: {
        artifacts: { aws: { release: rel, formats: {} } },
        images: { aws: { regions: regions("aarch64") } },
      },
    },
  };
}

export function bootImagesConfigMap(version: string): KubeObject {
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: {
      name: "coreos-bootimages",
      namespace: MCO_NAMESPACE,
      annotations: {
        "include.release.openshift.io/ibm-cloud-managed": "true",
        "include.release.openshift.io/self-managed-high-availability": "true",
        "include.release.openshift.io/single-node-developer": "true",
      },
    },
    data: { releaseVersion: version, stream: JSON.stringify(coreosStream(version), null, 2) },
  };
}

/** The providerSpec fragment naming the boot image on each platform. */
export function bootImageRef(platform: Platform, version: string, region: string, infraName: string, failureDomain: string): Record<string, unknown> {
  switch (platform) {
    case "aws":
      return { ami: { id: amiId(version, region) } };
    case "gcp": {
      const g = gcpImage(version);
      return { image: `projects/${g.project}/global/images/${g.name}` };
    }
    case "azure":
      return { image: { ...azureImage(version), sku: `${azureImage(version).sku}-v2`, type: "MarketplaceNoPlan", resourceID: "" } };
    case "vsphere":
      return { template: `${infraName}-rhcos-${failureDomain}` };
  }
}
