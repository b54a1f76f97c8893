// MachineConfigs: the per-role sources and the rendered config of each pool, with realistic Ignition
// content (data: URL files, systemd units, ssh keys) and the release-image-version annotation.
import { A, MCO_CONTROLLER_VERSION, SIM_LABEL } from "../constants.js";
import { osImageUrl, renderedName } from "../release.js";
import { stableHex } from "../rng.js";
import type { KubeObject } from "../types.js";

const MC_API = "machineconfiguration.openshift.io/v1";

const dataUrl = (text: string) => `data:,${encodeURIComponent(text)}`;

function file(path: string, contents: string, mode = 420): Record<string, unknown> {
  return { path, mode, overwrite: true, contents: { source: dataUrl(contents) } };
}

/** The source MachineConfig names a role renders from, in upstream order. */
export function sourceNames(role: string): string[] {
  return [`00-${role}`, `01-${role}-container-runtime`, `01-${role}-kubelet`, `97-${role}-generated-kubelet`, `98-${role}-generated-kubelet`, `99-${role}-generated-registries`, `99-${role}-ssh`];
}

export function sshKey(clusterName: string): string {
  return `ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI${stableHex(43, "ssh", clusterName)} admin@${clusterName}`;
}

function ignition(role: string, version: string, clusterName: string): Record<string, unknown> {
  return {
    ignition: { version: "3.4.0" },
    passwd: { users: [{ name: "core", sshAuthorizedKeys: [sshKey(clusterName)] }] },
    storage: {
      files: [
        file("/etc/kubernetes/kubelet.conf", `kind: KubeletConfiguration\napiVersion: kubelet.config.k8s.io/v1beta1\nnodeStatusUpdateFrequency: 10s\nnodeStatusReportFrequency: 5m\nsystemReserved:\n  cpu: 500m\n  memory: 1Gi\n`),
        file("/etc/containers/registries.conf", `unqualified-search-registries = ["registry.access.redhat.com", "docker.io"]\nshort-name-mode = ""\n`),
        file("/etc/crio/crio.conf.d/00-default", `[crio.runtime]\nselinux = true\nconmon = ""\n[crio.image]\nglobal_auth_file = "/var/lib/kubelet/config.json"\n`),
        file("/etc/mco/proxy.env", `# Proxy environment variables will be populated in this file.\n`),
        file("/etc/node-sizing-enabled.env", `NODE_SIZING_ENABLED=false\nSYSTEM_RESERVED_MEMORY=1Gi\nSYSTEM_RESERVED_CPU=500m\n`),
        file(`/etc/kubernetes/static-pod-resources/${role}-release`, `${version}\n`),
      ],
    },
    systemd: {
      units: [
        { name: "kubelet.service", enabled: true, contents: `[Unit]\nDescription=Kubernetes Kubelet\nWants=rpc-statd.service network-online.target\nAfter=network-online.target crio.service\n\n[Service]\nExecStart=/usr/local/bin/kubenswrapper /usr/bin/kubelet --config=/etc/kubernetes/kubelet.conf --node-labels=node-role.kubernetes.io/${role}\nRestart=always\n\n[Install]\nWantedBy=multi-user.target\n` },
        { name: "crio.service", dropins: [{ name: "10-mco-default-madv.conf", contents: "[Service]\nEnvironment=\"GODEBUG=x509ignoreCN=0,madvdontneed=1\"\n" }] },
        { name: "machine-config-daemon-firstboot.service", enabled: true, contents: "[Unit]\nDescription=Machine Config Daemon Firstboot\nConditionPathExists=/etc/ignition-machine-config-encapsulated.json\n\n[Service]\nType=oneshot\nExecStart=/run/bin/machine-config-daemon firstboot-complete-machineconfig\n\n[Install]\nWantedBy=multi-user.target\n" },
      ],
    },
  };
}

export function sourceMachineConfigs(role: string, clusterName: string, version: string): KubeObject[] {
  return sourceNames(role).map((name): KubeObject => ({
    apiVersion: MC_API,
    kind: "MachineConfig",
    metadata: {
      name,
      labels: { "machineconfiguration.openshift.io/role": role, [SIM_LABEL]: "true" },
      annotations: name.endsWith("-ssh") ? ({} as Record<string, string>) : { [A.generatedByControllerVersion]: MCO_CONTROLLER_VERSION },
    },
    spec: name.endsWith("-ssh")
      ? { config: { ignition: { version: "3.2.0" }, passwd: { users: [{ name: "core", sshAuthorizedKeys: [sshKey(clusterName)] }] } } }
      : name === `00-${role}`
        ? { config: ignition(role, version, clusterName), osImageURL: osImageUrl(version), fips: false, kernelArguments: [], kernelType: "" }
        : { config: { ignition: { version: "3.4.0" } } },
  }));
}

/** The rendered config of `pool` (whose sources come from `roles`) at `version`. */
export function renderedMachineConfig(pool: string, roles: string[], clusterName: string, version: string): KubeObject {
  const name = renderedName(pool, version);
  return {
    apiVersion: MC_API,
    kind: "MachineConfig",
    metadata: {
      name,
      labels: { [SIM_LABEL]: "true" },
      annotations: {
        [A.generatedByControllerVersion]: MCO_CONTROLLER_VERSION,
        [A.releaseImageVersion]: version,
      },
    },
    spec: {
      config: ignition(roles[roles.length - 1]!, version, clusterName),
      osImageURL: osImageUrl(version),
      extensions: [],
      fips: false,
      kernelArguments: [],
      kernelType: "default",
    },
  };
}

/** `spec.configuration.source` of a pool: the source configs it renders from. */
export function configurationSource(roles: string[]): Array<{ apiVersion: string; kind: string; name: string }> {
  return roles.flatMap((r) => sourceNames(r)).map((name) => ({ apiVersion: MC_API, kind: "MachineConfig", name }));
}
