import { env, serviceConfigSchema } from "@lockstep/runtime";
import { z } from "zod";
import { parseSkewSettings, skewSettingsSchema, type SkewSettings } from "@lockstep/skew-rules";

/**
 * Skew-enforcer settings (plus the runtime's base variables):
 *
 * | variable | meaning | default |
 * |---|---|---|
 * | KUBECONFIG | kubeconfig file; in-cluster config when unset inside a pod | client-node default |
 * | GRPC_PORT / HTTP_PORT | SkewService / health and metrics | 9092 / 8092 |
 * | PAUSED_POOLS | `Block` or `AllowWithinKubeletSkew` (mco-behaviors.md §5.6 rule 3) | Block |
 * | KUBELET_SKEW | supported kubelet skew, in minors, of a target release | 2 |
 * | KUBELET_SKEW_BY_MINOR | per-release overrides, e.g. `4.22=3,4.23=2` | |
 * | BOOT_IMAGE_OCP_LIMIT / BOOT_IMAGE_RHEL_LIMIT | boot image skew limits of every release (§4.6) | 4.13.0 / 9.2 |
 * | BOOT_IMAGE_LIMITS_BY_MINOR | per-release limits `minor=ocp/rhel`, e.g. `4.23=4.14.0/9.4` | |
 * | LOCKSTEP_NAMESPACE | namespace Lockstep runs in (a related object of ClusterOperator lockstep) | lockstep |
 * | OPERATOR_VERSION | Lockstep's version, reported as operand `operator` | 0.1.0 |
 * | RESYNC_PERIOD | re-evaluate this often even without changes | 10m |
 * | EVALUATE_DELAY | a change waits this long so a burst of changes costs one evaluation | 250ms |
 * | BOOTIMAGES_NAMESPACE / BOOTIMAGES_CONFIGMAP | the release's boot image ConfigMap (as the watcher's) | openshift-machine-config-operator / coreos-bootimages |
 */
const pairs = (what: string) =>
  z.string().transform((s, ctx) => {
    const out: Record<string, string> = {};
    for (const item of s.split(",").map((x) => x.trim()).filter(Boolean)) {
      const eq = item.indexOf("=");
      if (eq <= 0 || eq === item.length - 1) {
        ctx.addIssue({ code: "custom", message: `expected comma-separated minor=${what} pairs, got ${JSON.stringify(item)}` });
        return z.NEVER;
      }
      out[item.slice(0, eq).trim()] = item.slice(eq + 1).trim();
    }
    return out;
  });

const shape = {
  KUBECONFIG: env.string().optional(),
  GRPC_PORT: env.port().default(9092),
  HTTP_PORT: env.port().default(8092),
  PAUSED_POOLS: env.string().default("Block"),
  KUBELET_SKEW: env.int({ min: 0, max: 10 }).default(2),
  KUBELET_SKEW_BY_MINOR: pairs("skew").default({}),
  BOOT_IMAGE_OCP_LIMIT: env.string().default("4.13.0"),
  BOOT_IMAGE_RHEL_LIMIT: env.string().default("9.2"),
  BOOT_IMAGE_LIMITS_BY_MINOR: pairs("ocp/rhel").default({}),
  LOCKSTEP_NAMESPACE: env.string().default("lockstep"),
  OPERATOR_VERSION: env.string().default("0.1.0"),
  RESYNC_PERIOD: env.duration().default(600_000),
  EVALUATE_DELAY: env.duration().default(250),
  BOOTIMAGES_NAMESPACE: env.string().default("openshift-machine-config-operator"),
  BOOTIMAGES_CONFIGMAP: env.string().default("coreos-bootimages"),
};

type SettingsVars = {
  PAUSED_POOLS?: unknown;
  KUBELET_SKEW?: unknown;
  KUBELET_SKEW_BY_MINOR?: unknown;
  BOOT_IMAGE_OCP_LIMIT?: unknown;
  BOOT_IMAGE_RHEL_LIMIT?: unknown;
  BOOT_IMAGE_LIMITS_BY_MINOR?: unknown;
};

/** The settings object the pure rules take, before validation. */
function settingsInput(c: SettingsVars): unknown {
  const skewByMinor: Record<string, unknown> = {};
  for (const [minor, value] of Object.entries((c.KUBELET_SKEW_BY_MINOR ?? {}) as Record<string, string>)) {
    skewByMinor[minor] = /^\d+$/.test(value) ? Number(value) : value;
  }
  const limitsByMinor: Record<string, unknown> = {};
  for (const [minor, value] of Object.entries((c.BOOT_IMAGE_LIMITS_BY_MINOR ?? {}) as Record<string, string>)) {
    const [ocpVersion = "", rhelVersion = ""] = value.split("/").map((s) => s.trim());
    limitsByMinor[minor] = { ocpVersion, rhelVersion };
  }
  return {
    pausedPools: c.PAUSED_POOLS,
    kubeletSkew: { default: c.KUBELET_SKEW, byMinor: skewByMinor },
    bootImageLimits: { default: { ocpVersion: c.BOOT_IMAGE_OCP_LIMIT, rhelVersion: c.BOOT_IMAGE_RHEL_LIMIT }, byMinor: limitsByMinor },
  };
}

/** Which variable a settings-schema issue path came from. */
function variableOf(path: readonly PropertyKey[]): string {
  const [a, b, c] = path.map(String);
  if (a === "pausedPools") return "PAUSED_POOLS";
  if (a === "kubeletSkew") return b === "byMinor" ? "KUBELET_SKEW_BY_MINOR" : "KUBELET_SKEW";
  if (b === "byMinor") return "BOOT_IMAGE_LIMITS_BY_MINOR";
  return c === "rhelVersion" ? "BOOT_IMAGE_RHEL_LIMIT" : "BOOT_IMAGE_OCP_LIMIT";
}

export const skewEnforcerConfigSchema = serviceConfigSchema(shape).superRefine((c, ctx) => {
  // Invalid single variables are reported by their own parsers; check the rules' settings only when all parsed.
  const raw = c as SettingsVars;
  if (typeof raw.KUBELET_SKEW !== "number" || typeof raw.KUBELET_SKEW_BY_MINOR !== "object" || typeof raw.BOOT_IMAGE_LIMITS_BY_MINOR !== "object") return;
  const result = skewSettingsSchema.safeParse(settingsInput(raw));
  if (result.success) return;
  for (const issue of result.error.issues) {
    const detail = issue.path.length > 2 ? ` (${issue.path.slice(2).map(String).join(".")})` : "";
    ctx.addIssue({ code: "custom", path: [variableOf(issue.path)], message: `${issue.message}${detail}` });
  }
});

export type SkewEnforcerConfig = z.output<typeof skewEnforcerConfigSchema>;

/** The validated settings of the pure rules (the schema above has already checked them). */
export function skewSettingsFromConfig(c: SkewEnforcerConfig): SkewSettings {
  return parseSkewSettings(settingsInput(c));
}
