import { BootImagePolicyState, BootImagesState, ClusterVersionState, InfrastructureState, MachineSetState } from "@lockstep/contracts";
import { describe, expect, it } from "vitest";
import { MARKETPLACE_AMI_OWNER, RHCOS_AMI_OWNER, type AwsImageCatalog } from "./aws.js";
import { hotLoopMessage } from "./hot-loop.js";
import { planBootImageUpdates, summarisePass, toMachineSetPlan, type PlanInput } from "./planner.js";
import { awsProviderSpec, gcpProviderSpec } from "./testdata/provider-specs.js";
import { STREAM_JSON } from "./testdata/stream.js";

type MsOpts = Parameters<typeof MachineSetState.fromPartial>[0];
const ms = (name: string, spec: object, o: MsOpts = {}) =>
  MachineSetState.fromPartial({ namespace: "openshift-machine-api", name, resourceVersion: "7", providerSpecJson: JSON.stringify(spec), ...o });
const cv = (state = "Completed", architecture = "") =>
  ClusterVersionState.fromPartial({
    desired: { version: "4.22.1", architecture },
    history: [
      { state, version: "4.22.1" },
      { state: "Completed", version: "4.12.3" },
    ],
  });
const bootImages = (streamJson = STREAM_JSON) => BootImagesState.fromPartial({ name: "coreos-bootimages", streamJson, releaseVersion: "4.22.1" });
const automatic = (p: Parameters<typeof BootImagePolicyState.fromPartial>[0] = {}) =>
  BootImagePolicyState.fromPartial({ name: "cluster", skewStatus: { mode: "Automatic", ocpVersion: "4.12.3" }, machineSetsStatusMode: "All", ...p });

const OLD_AMI = "ami-0c5d3e3b4f3d1c7e2";
const CUSTOM_AMI = "ami-0custom000000000";
const awsCatalog: AwsImageCatalog = {
  images: {
    [OLD_AMI]: { ok: true, value: { imageId: OLD_AMI, ownerId: RHCOS_AMI_OWNER, name: "rhcos-412", description: "", creationDate: "2023-01-01T00:00:00Z" } },
    [CUSTOM_AMI]: { ok: true, value: { imageId: CUSTOM_AMI, ownerId: "111122223333", name: "golden", description: "", creationDate: "2024-01-01T00:00:00Z" } },
  },
  marketplace: {},
};

const aws = (over: Partial<PlanInput> = {}): PlanInput => ({
  machineSets: [ms("worker-us-east-1a", awsProviderSpec()), ms("worker-us-east-1b", awsProviderSpec())],
  bootImages: bootImages(),
  policy: automatic(),
  infra: InfrastructureState.fromPartial({ platform: "AWS", region: "us-east-1", infrastructureName: "prod-east-x7k2p" }),
  clusterVersion: cv(),
  reason: "ClusterVersionStable",
  aws: { catalog: awsCatalog },
  ...over,
});

describe("planBootImageUpdates: a clean AWS pass", () => {
  const pass = planBootImageUpdates(aws());
  it("patches every enrolled MachineSet to the region AMI", () => {
    expect(pass.status).toBe("ran");
    expect(pass.decisions.map((d) => [d.name, d.action, d.targetImage, d.resourceVersion])).toEqual([
      ["worker-us-east-1a", "patch", "ami-0e0a1b2c3d4e5f601", "7"],
      ["worker-us-east-1b", "patch", "ami-0e0a1b2c3d4e5f601", "7"],
    ]);
    expect(pass.decisions[0]?.patch).toEqual({ ami: { id: "ami-0e0a1b2c3d4e5f601" } });
    expect(pass.decisions[0]?.userDataSecret).toBe("worker-user-data");
  });
  it("reports counters and conditions", () => {
    expect(pass.counters).toEqual({ total: 2, ok: 2, skipped: 0, errored: 0, patched: 2, upToDate: 0, excluded: 0 });
    expect(pass.conditions?.progressing).toMatchObject({
      type: "BootImageUpdateProgressing",
      status: "False",
      reason: "ClusterVersionStable",
      message: "Reconciled 2 of 2 MAPI MachineSets | Reconciled 0 of 0 ControlPlaneMachineSets | Reconciled 0 of 0 CAPI MachineSets | Reconciled 0 of 0 CAPI MachineDeployments",
    });
    expect(pass.conditions?.degraded).toMatchObject({ status: "False", message: "0 Degraded MAPI MachineSets | 0 Degraded ControlPlaneMachineSets | 0 Degraded CAPI MachineSets | 0 Degraded CAPI MachineDeployments" });
  });
  it("records the release's OCP version", () => {
    expect(pass.skewRecord).toMatchObject({ action: "set", ocpVersion: "4.22.1" });
  });
});

describe("planBootImageUpdates: skip rules are counted and reset the record", () => {
  const pass = planBootImageUpdates(
    aws({
      machineSets: [
        ms("hive-managed", awsProviderSpec(), { ownerReferences: [{ kind: "MachinePool", name: "pool-a" }] }),
        ms("custom-ami", awsProviderSpec(CUSTOM_AMI)),
        ms("worker-a", awsProviderSpec()),
        ms("rhel10", awsProviderSpec(), { labels: { "machineconfiguration.openshift.io/osstream": "rhel-10" } }),
        ms("windows", awsProviderSpec(), { templateLabels: { "machine.openshift.io/os-id": "Windows" } }),
        ms("rhel9-labelled", awsProviderSpec("ami-0e0a1b2c3d4e5f601"), { labels: { "machineconfiguration.openshift.io/osstream": "rhel-9" } }),
      ],
      aws: { catalog: { ...awsCatalog, images: { ...awsCatalog.images, "ami-0e0a1b2c3d4e5f601": { ok: true, value: { imageId: "ami-0e0a1b2c3d4e5f601", ownerId: RHCOS_AMI_OWNER, name: "rhcos-96", description: "", creationDate: "" } } } } },
    }),
  );
  it("decides each MachineSet", () => {
    expect(Object.fromEntries(pass.decisions.map((d) => [d.name, d.action]))).toEqual({
      "custom-ami": "skip",
      "hive-managed": "skip",
      rhel10: "excluded",
      "rhel9-labelled": "upToDate",
      windows: "excluded",
      "worker-a": "patch",
    });
    expect(pass.decisions.find((d) => d.name === "hive-managed")?.reason).toBe("has OwnerReference (MachinePool/pool-a), skipping boot image update");
  });
  it("counts skips inside ok and shows them in the message", () => {
    expect(pass.counters).toMatchObject({ total: 6, ok: 6, skipped: 2, excluded: 2, errored: 0 });
    expect(pass.conditions?.progressing?.message).toMatch(/^Reconciled 4 of 6 MAPI MachineSets \(2 skipped\) \| /);
    expect(pass.conditions?.degraded.status).toBe("False");
  });
  it("resets the record to the install version", () => {
    expect(pass.skewRecord).toMatchObject({ action: "set", ocpVersion: "4.12.3" });
  });
});

describe("planBootImageUpdates: gating and selection", () => {
  it("waits quietly while the cluster is mid-update", () => {
    const pass = planBootImageUpdates(aws({ clusterVersion: cv("Partial") }));
    expect(pass).toMatchObject({ status: "waiting", decisions: [], errors: [] });
    expect(pass.conditions).toBeUndefined();
    expect(pass.skewRecord.action).toBe("unchanged");
  });
  it("does not run on unsupported platforms", () => {
    const pass = planBootImageUpdates(aws({ infra: InfrastructureState.fromPartial({ platform: "BareMetal" }) }));
    expect(pass).toMatchObject({ status: "notRequired", message: "boot image updates are not supported on platform BareMetal" });
    expect(pass.conditions).toBeUndefined();
  });
  it("enrols nothing with None, clears hot-loop memory and records nothing", () => {
    const pass = planBootImageUpdates(aws({ policy: automatic({ machineSetsMode: "None" }) }));
    expect(pass).toMatchObject({ status: "ran", decisions: [], clearHotLoop: true, skewRecord: { action: "unchanged" } });
    expect(pass.conditions?.progressing?.message).toMatch(/^Reconciled 0 of 0 MAPI MachineSets/);
  });
  it("enrols by label with Partial; others do not count", () => {
    const pass = planBootImageUpdates(
      aws({
        machineSets: [ms("a", awsProviderSpec(), { labels: { managed: "yes" } }), ms("b", awsProviderSpec())],
        policy: automatic({ machineSetsMode: "Partial", machineSetsSelector: { matchLabels: { managed: "yes" } } }),
      }),
    );
    expect(pass.decisions.map((d) => d.name)).toEqual(["a"]);
    expect(pass.counters.total).toBe(1);
  });
  it("an invalid Partial selection degrades", () => {
    const pass = planBootImageUpdates(aws({ policy: automatic({ machineSetsMode: "Partial" }) }));
    expect(pass.conditions?.degraded).toMatchObject({ status: "True", message: /Error\(s\): invalid MachineSet selection: Partial is required/ });
  });
  it("the platform default enrols everything and asks for the opt-in stamp", () => {
    const pass = planBootImageUpdates(aws({ policy: undefined }));
    expect(pass.selection).toEqual({ mode: "All", defaultOptIn: true });
    expect(pass.decisions).toHaveLength(2);
    expect(pass.skewRecord).toMatchObject({ action: "unchanged", why: /not Automatic/ });
  });
  it("skips MachineSets without an arch annotation on a multi-arch cluster", () => {
    const pass = planBootImageUpdates(aws({ clusterVersion: cv("Completed", "Multi") }));
    expect(pass.decisions.every((d) => d.action === "skip")).toBe(true);
    expect(pass.counters.skipped).toBe(2);
  });
});

describe("planBootImageUpdates: malformed inputs degrade and name the object", () => {
  it("missing coreos-bootimages", () => {
    const pass = planBootImageUpdates(aws({ bootImages: undefined }));
    expect(pass.conditions?.progressing).toBeUndefined();
    expect(pass.conditions?.degraded).toMatchObject({
      status: "True",
      message: "0 Degraded MAPI MachineSets | 0 Degraded ControlPlaneMachineSets | 0 Degraded CAPI MachineSets | 0 Degraded CAPI MachineDeployments | Error(s): failed to fetch coreos-bootimages config map: not found",
    });
    expect(pass.skewRecord.action).toBe("unchanged");
  });
  it("malformed stream JSON: every MachineSet errors, aggregated", () => {
    const pass = planBootImageUpdates(aws({ bootImages: bootImages('{"stream": "rhcos-9.6", "architectures": ') }));
    expect(pass.counters).toMatchObject({ total: 2, ok: 0, errored: 2 });
    expect(pass.errors[0]).toMatch(/^error syncing MAPI MachineSet worker-us-east-1a: coreos-bootimages: stream is not valid JSON: /);
    expect(pass.conditions?.degraded.message).toMatch(/^2 Degraded MAPI MachineSets \| .* \| Error\(s\): \[error syncing MAPI MachineSet worker-us-east-1a: .*, error syncing MAPI MachineSet worker-us-east-1b: .*\]$/);
    expect(pass.conditions?.progressing?.message).toMatch(/^Reconciled 0 of 2 MAPI MachineSets \|/);
    expect(pass.skewRecord.action).toBe("unchanged");
  });
  it("a stream missing a section names the path", () => {
    const pass = planBootImageUpdates(aws({ bootImages: bootImages('{"stream":"rhcos-9.6"}') }));
    expect(pass.errors[0]).toBe("error syncing MAPI MachineSet worker-us-east-1a: coreos-bootimages: invalid stream: $.architectures is missing");
  });
  it.each([
    { name: "not JSON", spec: "{oops", cause: /providerSpec is not valid JSON/ },
    { name: "not an object", spec: "[]", cause: /providerSpec must be a JSON object/ },
    { name: "other platform's kind", spec: JSON.stringify(gcpProviderSpec()), cause: /providerSpec kind GCPMachineProviderSpec does not match platform AWS \(expected AWSMachineProviderConfig\)/ },
    { name: "malformed ami", spec: JSON.stringify({ ...awsProviderSpec(), ami: "x" }), cause: /providerSpec ami must be an object/ },
  ])("malformed providerSpec: $name", ({ spec, cause }) => {
    const pass = planBootImageUpdates(aws({ machineSets: [MachineSetState.fromPartial({ namespace: "openshift-machine-api", name: "bad", providerSpecJson: spec }), ms("good", awsProviderSpec())] }));
    expect(pass.decisions.map((d) => d.action)).toEqual(["error", "patch"]);
    expect(pass.errors).toHaveLength(1);
    expect(pass.errors[0]).toMatch(/^error syncing MAPI MachineSet bad: /);
    expect(pass.errors[0]).toMatch(cause);
    expect(pass.conditions?.degraded).toMatchObject({ status: "True", message: /^1 Degraded MAPI MachineSets .* \| Error\(s\): error syncing MAPI MachineSet bad: / });
  });
  it("an invalid arch annotation is an error", () => {
    const pass = planBootImageUpdates(aws({ machineSets: [ms("w", awsProviderSpec(), { annotations: { "capacity.cluster-autoscaler.kubernetes.io/labels": "kubernetes.io/arch=i386" } })] }));
    expect(pass.errors).toEqual(["error syncing MAPI MachineSet w: invalid architecture value found in annotation"]);
  });
});

describe("planBootImageUpdates: hot loop", () => {
  it("refuses a fourth identical write and degrades with upstream's message", () => {
    const first = planBootImageUpdates(aws());
    const value = first.decisions[0]?.hotLoopValue as string;
    const pass = planBootImageUpdates(aws({ hotLoop: { "worker-us-east-1a": { value, count: 3 } } }));
    expect(pass.decisions.map((d) => d.action)).toEqual(["error", "patch"]);
    expect(pass.errors).toEqual([`error syncing MAPI MachineSet worker-us-east-1a: ${hotLoopMessage("worker-us-east-1a")}`]);
  });
});

describe("planBootImageUpdates: other platforms", () => {
  it("GCP: a custom image is skipped, which resets the record to the install version", () => {
    const pass = planBootImageUpdates({
      machineSets: [ms("w", gcpProviderSpec()), ms("custom", gcpProviderSpec("projects/acme/global/images/golden"))],
      bootImages: bootImages(),
      policy: automatic(),
      infra: InfrastructureState.fromPartial({ platform: "GCP", region: "us-central1" }),
      clusterVersion: cv(),
    });
    expect(pass.decisions.map((d) => d.action)).toEqual(["skip", "patch"]);
    expect(pass.conditions?.progressing).toMatchObject({ reason: "NA" });
    expect(pass.skewRecord).toMatchObject({ action: "set", ocpVersion: "4.12.3" });
  });
  it("AWS marketplace AMIs record the lowest RHCOS release", () => {
    const product = "59ead7de-2540-4653-a8b0-fa7926d5c845";
    const img = (id: string, rel: string) => ({ imageId: id, ownerId: MARKETPLACE_AMI_OWNER, name: `RHCOS-x86_64-${product}`, description: `RHCOS ${rel}`, creationDate: "2026-01-01T00:00:00Z" });
    const pass = planBootImageUpdates(
      aws({
        machineSets: [ms("m", awsProviderSpec("ami-m1"))],
        aws: { catalog: { images: { "ami-m1": { ok: true, value: img("ami-m1", "9.4.20250101-0") } }, marketplace: { [product]: { ok: true, value: [img("ami-m2", "9.6.20260210-0")] } } } },
      }),
    );
    expect(pass.decisions[0]).toMatchObject({ action: "patch", targetImage: "ami-m2", rhcosVersion: "9.6.20260210-0" });
    expect(pass.skewRecord).toMatchObject({ action: "set", rhcosVersion: "9.6.20260210-0" });
  });
  it("vSphere uses the Infrastructure failure domains and the edge's template look-ups", () => {
    const pass = planBootImageUpdates({
      machineSets: [ms("w", { kind: "VSphereMachineProviderSpec", template: "t", workspace: { server: "vc", datacenter: "dc", datastore: "ds", resourcePool: "/dc/host/c/Resources", folder: "/dc/vm/x" } })],
      bootImages: bootImages(),
      policy: automatic(),
      infra: InfrastructureState.fromPartial({
        platform: "VSphere",
        infrastructureName: "x",
        vspherePlatformSpecPresent: true,
        vsphereFailureDomains: [{ name: "fd", server: "vc", datacenter: "dc", datastore: "ds", resourcePool: "/dc/host/c/Resources" }],
      }),
      clusterVersion: cv(),
      vsphereTemplates: { w: { t: "418.94.202410090804-0" } },
    });
    expect(pass.decisions[0]).toMatchObject({ action: "patch", patch: {}, templateUpdate: { templateName: "t", targetRelease: "9.6.20260210-0" } });
  });
});

describe("summarisePass and toMachineSetPlan", () => {
  it("re-summarises after a failed patch", () => {
    const pass = planBootImageUpdates(aws());
    const failed = pass.decisions.map((d, i) => (i === 0 ? { ...d, action: "error" as const, reason: "Conflict: the object has been modified" } : d));
    const s = summarisePass(failed, { reason: "r", skewMode: "Automatic", releaseVersion: "4.22.1", installVersion: "4.12.3" });
    expect(s.counters).toMatchObject({ ok: 1, errored: 1 });
    expect(s.conditions.degraded.message).toMatch(/Error\(s\): error syncing MAPI MachineSet worker-us-east-1a: Conflict/);
    expect(s.skewRecord.action).toBe("unchanged");
  });
  it("wraps the providerSpec patch at spec.template.spec.providerSpec.value", () => {
    const d = planBootImageUpdates(aws()).decisions[0];
    if (!d) throw new Error("no decision");
    const plan = toMachineSetPlan(d);
    expect(plan).toMatchObject({ name: "worker-us-east-1a", platform: "AWS", action: "Patch", currentImage: OLD_AMI, targetImage: "ami-0e0a1b2c3d4e5f601" });
    expect(JSON.parse(plan.patchJson)).toEqual({ spec: { template: { spec: { providerSpec: { value: { ami: { id: "ami-0e0a1b2c3d4e5f601" } } } } } } });
  });
});
