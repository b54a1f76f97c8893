// Test builders: raw MachineConfigs (Ignition v3) and the §2.4 default table as written in the spec.
import type { NdpAction } from "../types.js";

export interface FileSpec {
  path: string;
  contents?: string;
  mode?: number;
  /** Encode as percent-encoded instead of base64. */
  percent?: boolean;
}

export interface UnitSpec {
  name: string;
  contents?: string;
  enabled?: boolean;
  mask?: boolean;
  dropins?: Array<{ name: string; contents?: string }>;
}

export interface McSpec {
  name?: string;
  files?: FileSpec[];
  units?: UnitSpec[];
  sshKeys?: string[];
  passwordHash?: string;
  osImageURL?: string;
  kernelArguments?: string[];
  kernelType?: string;
  fips?: boolean;
  extensions?: string[];
}

export const BASE_OS = "quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:aaaa";

export function dataUrl(contents: string, percent = false): string {
  return percent ? `data:,${encodeURIComponent(contents)}` : `data:text/plain;charset=utf-8;base64,${Buffer.from(contents).toString("base64")}`;
}

/** A raw rendered MachineConfig. */
export function mc(s: McSpec = {}): Record<string, unknown> {
  const core: Record<string, unknown> = { name: "core", sshAuthorizedKeys: s.sshKeys ?? ["ssh-ed25519 AAAA core@example"] };
  if (s.passwordHash !== undefined) core["passwordHash"] = s.passwordHash;
  return {
    apiVersion: "machineconfiguration.openshift.io/v1",
    kind: "MachineConfig",
    metadata: { name: s.name ?? "rendered-worker-1" },
    spec: {
      osImageURL: s.osImageURL ?? BASE_OS,
      kernelArguments: s.kernelArguments ?? [],
      kernelType: s.kernelType ?? "",
      fips: s.fips ?? false,
      extensions: s.extensions ?? [],
      config: {
        ignition: { version: "3.4.0" },
        passwd: { users: [core] },
        storage: {
          files: (s.files ?? []).map((f) => ({
            path: f.path,
            mode: f.mode ?? 420,
            overwrite: true,
            contents: { source: dataUrl(f.contents ?? "", f.percent) },
          })),
        },
        systemd: {
          units: (s.units ?? []).map((u) => {
            const out: Record<string, unknown> = { name: u.name };
            if (u.contents !== undefined) out["contents"] = u.contents;
            if (u.enabled !== undefined) out["enabled"] = u.enabled;
            if (u.mask !== undefined) out["mask"] = u.mask;
            if (u.dropins) out["dropins"] = u.dropins;
            return out;
          }),
        },
      },
    },
  };
}

export const reboot: NdpAction = { type: "Reboot" };
export const none: NdpAction = { type: "None" };
export const drain: NdpAction = { type: "Drain" };
export const special: NdpAction = { type: "Special" };
export const daemonReload: NdpAction = { type: "DaemonReload" };
export const reload = (serviceName: string): NdpAction => ({ type: "Reload", reload: { serviceName } });
export const restart = (serviceName: string): NdpAction => ({ type: "Restart", restart: { serviceName } });

/** mco-behaviors.md §2.4, main, in order. */
export const SPEC_DEFAULT_FILES: Array<{ path: string; actions: NdpAction[]; directory?: boolean }> = [
  { path: "/var/lib/kubelet/config.json", actions: [none] },
  { path: "/etc/machine-config-daemon/no-reboot/containers-gpg.pub", actions: [reload("crio.service")] },
  { path: "/etc/containers/policy.json", actions: [reload("crio.service")] },
  { path: "/etc/containers/registries.conf", actions: [special] },
  { path: "/etc/containers/registries.d", actions: [reload("crio.service")], directory: true },
  { path: "/etc/crio/policies", actions: [reload("crio.service")], directory: true },
  { path: "/etc/nmstate/openshift", actions: [none], directory: true },
  {
    path: "/etc/pki/ca-trust/source/anchors/openshift-config-user-ca-bundle.crt",
    actions: [restart("coreos-update-ca-trust.service"), restart("crio.service")],
  },
  { path: "/etc/kubernetes/credential-providers", actions: [restart("kubelet.service")], directory: true },
  {
    path: "/etc/systemd/system/kubelet.service.d/40-kubelet-crio-image-credential-provider.conf",
    actions: [daemonReload, restart("kubelet.service")],
  },
  { path: "/etc/iri-registry", actions: [restart("iri-registry.service")] },
  { path: "/usr/local/bin/load-registry-image.sh", actions: [restart("iri-registry.service")] },
  { path: "/etc/pki/ca-trust/source/anchors/iri-root-ca.crt", actions: [restart("coreos-update-ca-trust.service")] },
];
export const SPEC_DEFAULT_UNITS = [{ name: "iri-registry.service", actions: [daemonReload, restart("iri-registry.service")] }];
export const SPEC_DEFAULT_SSHKEY = { actions: [none] };

/** The §2.4 table as a default NodeDisruptionPolicy object. */
export const SPEC_DEFAULTS_OBJECT = {
  apiVersion: "lockstep.io/v1alpha1",
  kind: "NodeDisruptionPolicy",
  metadata: { name: "lockstep-defaults", labels: { "lockstep.io/default": "true" } },
  spec: {
    files: SPEC_DEFAULT_FILES.map((f) => ({ path: f.path, actions: f.actions })),
    units: SPEC_DEFAULT_UNITS,
    sshkey: SPEC_DEFAULT_SSHKEY,
  },
};

/** An admin NodeDisruptionPolicy object. */
export function adminPolicy(
  name: string,
  spec: { files?: Array<{ path: string; actions: NdpAction[] }>; units?: Array<{ name: string; actions: NdpAction[] }>; sshkey?: { actions: NdpAction[] } },
): Record<string, unknown> {
  return { apiVersion: "lockstep.io/v1alpha1", kind: "NodeDisruptionPolicy", metadata: { name }, spec };
}
