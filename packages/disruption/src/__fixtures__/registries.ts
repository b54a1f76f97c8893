// registries.conf texts in the shape openshift/runtime-utils renders (4.13+ and the older style).
export interface MirrorSpec {
  location: string;
  pullFromMirror?: string;
  insecure?: boolean;
}
export interface RegistrySpec {
  prefix?: string;
  location: string;
  mirrorByDigestOnly?: boolean;
  blocked?: boolean;
  insecure?: boolean;
  mirrors?: MirrorSpec[];
}

export function registriesConf(search: string[], registries: RegistrySpec[]): string {
  const lines = [`unqualified-search-registries = [${search.map((s) => JSON.stringify(s)).join(", ")}]`, 'short-name-mode = ""', ""];
  for (const r of registries) {
    lines.push("[[registry]]");
    lines.push(`  prefix = ${JSON.stringify(r.prefix ?? "")}`);
    lines.push(`  location = ${JSON.stringify(r.location)}`);
    if (r.mirrorByDigestOnly !== undefined) lines.push(`  mirror-by-digest-only = ${r.mirrorByDigestOnly}`);
    if (r.blocked !== undefined) lines.push(`  blocked = ${r.blocked}`);
    if (r.insecure !== undefined) lines.push(`  insecure = ${r.insecure}`);
    for (const m of r.mirrors ?? []) {
      lines.push("", "  [[registry.mirror]]");
      lines.push(`    location = ${JSON.stringify(m.location)}`);
      if (m.insecure !== undefined) lines.push(`    insecure = ${m.insecure}`);
      if (m.pullFromMirror !== undefined) lines.push(`    pull-from-mirror = ${JSON.stringify(m.pullFromMirror)}`);
    }
    lines.push("");
  }
  return lines.join("\n");
}

export const SEARCH = ["registry.access.redhat.com", "docker.io"];
export const RELEASE = "quay.io/openshift-release-dev/ocp-release";
export const ART = "quay.io/openshift-release-dev/ocp-v4.0-art-dev";

/** A typical 4.13+ IDMS rendering: one source with one digest-only mirror. */
export const BASE_REGISTRIES: RegistrySpec[] = [
  { location: RELEASE, mirrors: [{ location: "mirror.example.com/ocp/release", pullFromMirror: "digest-only" }] },
];
