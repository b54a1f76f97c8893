import type { BootImagesState, MachineSetState } from "@lockstep/contracts";

/** What the stream says about the boot image a MachineSet uses, when it can be matched. */
export type MachineSetImageMatch =
  | { readonly matched: true; readonly image: string; readonly rhcosRelease: string }
  | { readonly matched: false; readonly image: string; readonly why: string };

const ARCH_LABELS_ANNOTATION = "capacity.cluster-autoscaler.kubernetes.io/labels";
const RPM_ARCH: Record<string, string> = { amd64: "x86_64", arm64: "aarch64", ppc64le: "ppc64le", s390x: "s390x" };

/** The stream architecture of a MachineSet: from the autoscaler labels annotation, default x86_64. */
export function machineSetArchitecture(ms: MachineSetState): string {
  const labels = ms.annotations[ARCH_LABELS_ANNOTATION] ?? "";
  for (const pair of labels.split(",")) {
    const [key, value] = pair.split("=").map((s) => s.trim());
    if (key === "kubernetes.io/arch" && value) return RPM_ARCH[value] ?? value;
  }
  return "x86_64";
}

type Json = Record<string, unknown>;
const obj = (v: unknown): Json | undefined => (v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Json) : undefined);
const str = (v: unknown): string => (typeof v === "string" ? v : "");

function parse(text: string): Json | undefined {
  try {
    return obj(JSON.parse(text));
  } catch {
    return undefined;
  }
}

/**
 * Matches the image in a MachineSet's providerSpec against the current stream of the
 * `coreos-bootimages` ConfigMap. Only exact matches count: AWS `ami.id` against the region's
 * AMI, GCP boot disk image against `projects/<project>/global/images/<name>`, Azure marketplace
 * image against any marketplace variant. vSphere templates carry no version, so they never match.
 */
export function matchMachineSetImage(ms: MachineSetState, bootImages: BootImagesState | undefined): MachineSetImageMatch {
  const spec = parse(ms.providerSpecJson);
  if (!spec) return { matched: false, image: "", why: "the providerSpec is not valid JSON" };
  const stream = bootImages ? parse(bootImages.streamJson) : undefined;
  const arch = machineSetArchitecture(ms);
  const archEntry = obj(obj(stream?.architectures)?.[arch]);
  const images = obj(archEntry?.images);
  const none = (image: string, why: string): MachineSetImageMatch => ({ matched: false, image, why });
  if (!stream) return none("", "the coreos-bootimages stream is missing or not valid JSON");

  switch (ms.providerSpecKind) {
    case "AWSMachineProviderConfig": {
      const image = str(obj(spec.ami)?.id);
      const region = str(obj(spec.placement)?.region);
      const entry = obj(obj(obj(images?.aws)?.regions)?.[region]);
      if (!image) return none("", "the MachineSet has no ami.id");
      if (!entry) return none(image, `the stream has no ${arch} AMI for region ${region || "(none)"}`);
      return image === str(entry.image) ? { matched: true, image, rhcosRelease: str(entry.release) } : none(image, `${image} is not the stream AMI ${str(entry.image)}`);
    }
    case "GCPMachineProviderSpec": {
      const disks = Array.isArray(spec.disks) ? spec.disks.map(obj).filter((d) => d?.boot === true) : [];
      const image = str(disks[0]?.image);
      const gcp = obj(images?.gcp);
      if (!image) return none("", "the MachineSet has no boot disk image");
      if (!gcp) return none(image, `the stream has no ${arch} GCP image`);
      const target = `projects/${str(gcp.project)}/global/images/${str(gcp.name)}`;
      const all = disks.every((d) => str(d?.image) === target);
      return all ? { matched: true, image, rhcosRelease: str(gcp.release) } : none(image, `${image} is not the stream image ${target}`);
    }
    case "AzureMachineProviderSpec": {
      const img = obj(spec.image);
      const image = img ? [img.publisher, img.offer, img.sku, img.version].map(str).join(":") : "";
      if (!img || !str(img.publisher)) return none(image, "the MachineSet has no marketplace image");
      const variants = obj(obj(obj(archEntry?.["rhel-coreos-extensions"])?.marketplace)?.azure) ?? {};
      for (const variant of Object.values(variants)) {
        for (const gen of Object.values(obj(variant) ?? {})) {
          const g = obj(gen);
          if (g && ["publisher", "offer", "sku", "version"].every((k) => str(g[k]) === str(img[k]))) {
            return { matched: true, image, rhcosRelease: "" };
          }
        }
      }
      return none(image, `${image} is not a marketplace image of the stream`);
    }
    default:
      return none("", `boot images of ${ms.providerSpecKind || "an unknown provider"} cannot be matched to the stream`);
  }
}
