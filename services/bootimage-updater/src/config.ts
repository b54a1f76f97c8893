import { env, serviceConfigSchema } from "@lockstep/runtime";
import { isGoArch, type GoArch } from "./bootimages/index.js";
import { z } from "zod";

const GO_ARCH: Readonly<Record<string, GoArch>> = { x64: "amd64", arm64: "arm64", s390x: "s390x", ppc64: "ppc64le" };

/**
 * bootimage-updater settings (plus the runtime's base variables; GRPC_PORT defaults to 9093 and
 * HTTP_PORT to 8093 here):
 *
 * | variable | meaning | default |
 * |---|---|---|
 * | KUBECONFIG | kubeconfig file; in-cluster config when unset inside a pod | client-node default |
 * | BOOTIMAGES_NAMESPACE / BOOTIMAGES_CONFIGMAP | the release's boot image ConfigMap | openshift-machine-config-operator / coreos-bootimages |
 * | AWS_ALLOWED_AMIS | comma-separated AMIs known to be standard RHCOS images. The updater has no EC2 client, so on AWS only these AMIs (and AMIs already current) are classified; any other AMI is skipped (mco-behaviors.md §3.18 allow-list fallback) | none |
 * | CONTROLLER_ARCH | architecture of MachineSets without an arch annotation on single-arch clusters (amd64, arm64, s390x, ppc64le) | this process's |
 * | ERROR_RETRY_PERIOD | re-run a pass this often while MachineSets are in error | 15m |
 * | STALE_RECHECK | look again this soon while a written MachineSet's snapshot has not caught up | 2s |
 */
export const bootImageUpdaterConfigSchema = serviceConfigSchema({
  HTTP_PORT: env.port().default(8093),
  GRPC_PORT: env.port().default(9093),
  KUBECONFIG: env.string().optional(),
  BOOTIMAGES_NAMESPACE: env.string().default("openshift-machine-config-operator"),
  BOOTIMAGES_CONFIGMAP: env.string().default("coreos-bootimages"),
  AWS_ALLOWED_AMIS: env.list().optional(),
  CONTROLLER_ARCH: env
    .string()
    .refine((v) => isGoArch(v), { message: "expected one of amd64, arm64, s390x, ppc64le" })
    .transform((v) => v as GoArch)
    .optional(),
  ERROR_RETRY_PERIOD: env.duration().default(15 * 60_000),
  STALE_RECHECK: env.duration().default(2_000),
});

export type BootImageUpdaterConfig = z.output<typeof bootImageUpdaterConfigSchema>;

/** The architecture this process runs on, in Go's naming. */
export function processArch(): GoArch {
  return GO_ARCH[process.arch] ?? "amd64";
}
