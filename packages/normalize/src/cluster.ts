import type { ClusterOperatorState, ClusterVersionState, InfrastructureState } from "@lockstep/contracts";
import { conditions, int64, meta, requireName, str, time, type Obj } from "./common.js";

export function normalizeClusterVersion(o: Obj): ClusterVersionState {
  const name = requireName("ClusterVersion", o);
  const spec = (o.spec ?? {}) as Obj;
  const status = (o.status ?? {}) as Obj;
  const du = spec.desiredUpdate as Obj | undefined;
  return {
    name,
    uid: str(meta(o).uid),
    desired: { version: str(status.desired?.version), image: str(status.desired?.image), architecture: str(status.desired?.architecture) },
    desiredUpdate: du ? { version: str(du.version), image: str(du.image), force: du.force === true } : undefined,
    history: (Array.isArray(status.history) ? (status.history as Obj[]) : []).map((h) => ({
      state: str(h?.state),
      version: str(h?.version),
      image: str(h?.image),
      startedTime: time(h?.startedTime),
      completionTime: time(h?.completionTime),
      verified: h?.verified === true,
      acceptedRisks: str(h?.acceptedRisks),
    })),
    conditions: conditions(status.conditions),
    generation: int64(meta(o).generation),
    observedGeneration: int64(status.observedGeneration),
    channel: str(spec.channel),
    clusterId: str(spec.clusterID),
  };
}

export function normalizeClusterOperator(o: Obj): ClusterOperatorState {
  const name = requireName("ClusterOperator", o);
  const status = (o.status ?? {}) as Obj;
  return {
    name,
    uid: str(meta(o).uid),
    annotationKeys: Object.keys(meta(o).annotations ?? {}).sort(),
    versions: (Array.isArray(status.versions) ? (status.versions as Obj[]) : []).map((v) => ({ name: str(v?.name), version: str(v?.version) })),
    conditions: conditions(status.conditions),
  };
}

export function normalizeInfrastructure(o: Obj): InfrastructureState {
  const name = requireName("Infrastructure", o);
  const status = (o.status ?? {}) as Obj;
  const ps = (status.platformStatus ?? {}) as Obj;
  const platform = str(ps.type || status.platform);
  const vs = o.spec?.platformSpec?.vsphere as Obj | undefined;
  return {
    name,
    platform,
    region: str(ps.aws?.region ?? ps.gcp?.region ?? ps.ibmcloud?.location ?? ""),
    infrastructureName: str(status.infrastructureName),
    controlPlaneTopology: str(status.controlPlaneTopology),
    infrastructureTopology: str(status.infrastructureTopology),
    projectId: str(ps.gcp?.projectID),
    resourceGroup: str(ps.azure?.resourceGroupName),
    azureCloudName: str(ps.azure?.cloudName),
    vspherePlatformSpecPresent: vs !== undefined && vs !== null,
    vsphereFailureDomains: (Array.isArray(vs?.failureDomains) ? (vs!.failureDomains as Obj[]) : []).map((fd) => ({
      name: str(fd?.name),
      server: str(fd?.server),
      datacenter: str(fd?.topology?.datacenter),
      datastore: str(fd?.topology?.datastore),
      resourcePool: str(fd?.topology?.resourcePool),
      folder: str(fd?.topology?.folder),
      computeCluster: str(fd?.topology?.computeCluster),
      vmGroup: str(fd?.zoneAffinity?.hostGroup?.vmGroup),
    })),
  };
}
