import { describe, expect, it } from "vitest";
import type { BootImageVerdict } from "./boot-image-skew.js";
import { bootImages, machineSet } from "./fixtures.js";
import { machineSetArchitecture, matchMachineSetImage } from "./machine-set-image.js";
import { checkScaleUp } from "./scale-up.js";

const stream = {
  stream: "rhcos-9.6",
  architectures: {
    x86_64: {
      images: {
        aws: { regions: { "us-east-1": { release: "9.6.20260210-0", image: "ami-current" } } },
        gcp: { release: "9.6.20260210-0", project: "rhcos-cloud", name: "rhcos-9-6-x86" },
      },
      "rhel-coreos-extensions": {
        marketplace: { azure: { "no-purchase-plan": { hyperVGen2: { publisher: "azureopenshift", offer: "aro4", sku: "v2", version: "9.6.20260210" } } } },
      },
    },
    aarch64: { images: { aws: { regions: { "us-east-1": { release: "9.6.20260210-0", image: "ami-arm" } } } } },
  },
};
const cm = bootImages(stream, "4.22.1");
const aws = (ami: string, extra = {}) => machineSet("AWSMachineProviderConfig", { ami: { id: ami }, placement: { region: "us-east-1" } }, extra);

function verdict(record: Partial<BootImageVerdict>): BootImageVerdict {
  return {
    mode: "Manual",
    ocpVersion: "",
    rhcosVersion: "",
    limits: { ocpVersion: "4.13.0", rhelVersion: "9.2" },
    outcome: "WithinLimit",
    message: "",
    warning: "",
    enforcementNoneMetric: 0,
    ...record,
  };
}
const old = verdict({ ocpVersion: "4.12.3", outcome: "Violation" });
const fine = verdict({ ocpVersion: "4.22.1" });

describe("checkScaleUp", () => {
  it.each([
    ["AWS stream AMI is current even with an old cluster record", aws("ami-current"), old, true, "BootImageCurrent", "stream"],
    ["AWS custom AMI with an old record is refused", aws("ami-custom"), old, false, "BootImageTooOld", "cluster-record"],
    ["AWS custom AMI with a good record passes", aws("ami-custom"), fine, true, "AsExpected", "cluster-record"],
    [
      "arm64 MachineSet matched against aarch64",
      aws("ami-arm", { annotations: { "capacity.cluster-autoscaler.kubernetes.io/labels": "kubernetes.io/arch=arm64" } }),
      old,
      true,
      "BootImageCurrent",
      "stream",
    ],
    [
      "GCP stream image",
      machineSet("GCPMachineProviderSpec", { disks: [{ boot: true, image: "projects/rhcos-cloud/global/images/rhcos-9-6-x86" }, { boot: false, image: "x" }] }),
      old,
      true,
      "BootImageCurrent",
      "stream",
    ],
    [
      "GCP old image",
      machineSet("GCPMachineProviderSpec", { disks: [{ boot: true, image: "projects/rhcos-cloud/global/images/rhcos-412" }] }),
      old,
      false,
      "BootImageTooOld",
      "cluster-record",
    ],
    [
      "Azure marketplace image of the stream",
      machineSet("AzureMachineProviderSpec", { image: { publisher: "azureopenshift", offer: "aro4", sku: "v2", version: "9.6.20260210" } }),
      old,
      true,
      "BootImageCurrent",
      "stream",
    ],
    ["vSphere cannot be matched: the record decides", machineSet("VSphereMachineProviderSpec", { template: "rhcos-old" }), old, false, "BootImageTooOld", "cluster-record"],
    ["mode None: allowed, unchecked", aws("ami-custom"), verdict({ mode: "None", ocpVersion: "4.1.0" }), true, "SkewEnforcementNone", "none"],
    ["unparsable record: allowed, unchecked", aws("ami-custom"), verdict({ rhcosVersion: "9.6.2025102-0" }), true, "BootImageSkewUnchecked", "cluster-record"],
    ["Windows MachineSets are not RHCOS", aws("ami-custom", { templateLabels: { "machine.openshift.io/os-id": "Windows" } }), old, true, "NotRHCOS", "none"],
  ])("%s", (_name, ms, v, allowed, reason, source) => {
    expect(checkScaleUp(ms, v, cm)).toMatchObject({ allowed, reason, source });
  });

  it("says why and what to do when refusing", () => {
    expect(checkScaleUp(aws("ami-custom"), old, cm).message).toBe(
      "MachineSet openshift-machine-api/ms-a: ami-custom is not the stream AMI ami-current; the cluster boot image record is OCP 4.12.3, below the minimum 4.13.0 of this release. " +
        "Update its boot image (enable managed boot images, or update it by hand and record the version in BootImagePolicy cluster) before scaling up",
    );
  });

  it("refuses every scale-up while the view is stale, saying why (fail closed, as CheckUpgrade)", () => {
    const why = "the watcher has not been heard from for 41 s";
    for (const ms of [aws("ami-current"), aws("ami-custom", { templateLabels: { "machine.openshift.io/os-id": "Windows" } })]) {
      const r = checkScaleUp(ms, fine, cm, why);
      expect(r).toMatchObject({ allowed: false, reason: "StateStale", source: "none" });
      expect(r.message).toContain(why);
    }
    expect(checkScaleUp(aws("ami-current"), fine, cm, undefined).allowed).toBe(true);
  });

  it("refuses a stream image when the ConfigMap itself is below the limit", () => {
    const r = checkScaleUp(aws("ami-current"), fine, bootImages(stream, "4.12.0"));
    expect(r).toMatchObject({ allowed: false, reason: "BootImageTooOld", source: "stream" });
  });

  it("falls back to the record without a ConfigMap or with bad JSON", () => {
    expect(checkScaleUp(aws("ami-current"), old, undefined)).toMatchObject({ allowed: false, source: "cluster-record" });
    const broken = machineSet("AWSMachineProviderConfig", {}, { providerSpecJson: "{not json" });
    expect(matchMachineSetImage(broken, cm)).toMatchObject({ matched: false, why: "the providerSpec is not valid JSON" });
  });
});

describe("machineSetArchitecture", () => {
  it.each([
    [{}, "x86_64"],
    [{ "capacity.cluster-autoscaler.kubernetes.io/labels": "kubernetes.io/arch=amd64" }, "x86_64"],
    [{ "capacity.cluster-autoscaler.kubernetes.io/labels": "a=b,kubernetes.io/arch=arm64" }, "aarch64"],
    [{ "capacity.cluster-autoscaler.kubernetes.io/labels": "kubernetes.io/arch=s390x" }, "s390x"],
  ])("%j → %s", (annotations, arch) => {
    expect(machineSetArchitecture(machineSet("AWSMachineProviderConfig", {}, { annotations }))).toBe(arch);
  });
});
