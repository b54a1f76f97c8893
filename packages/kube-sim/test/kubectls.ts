// The kubectl binaries kube-sim's conformance tests drive: the project's own 1.31 in .tools/
// (scripts/tools.mjs, checksum verified) and the machine's on PATH (Debian's kubernetes-client)
// when there is one; KUBECTL_BIN replaces the latter.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { delimiter, join } from "node:path";
import { ensureTools, TOOLS, unsupportedReason } from "../../../scripts/tools.mjs";

export interface Kubectl {
  label: string;
  path: string;
}

function onPath(): string | undefined {
  const env = process.env.KUBECTL_BIN;
  if (env) {
    if (!existsSync(env)) throw new Error(`KUBECTL_BIN=${env} does not exist`);
    return env;
  }
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    const p = join(dir, "kubectl");
    if (dir && existsSync(p)) return p;
  }
  return undefined;
}

function clientVersion(path: string): string {
  const r = spawnSync(path, ["version", "--client", "-o", "json"], { encoding: "utf8" });
  try {
    return (JSON.parse(r.stdout) as { clientVersion: { gitVersion: string } }).clientVersion.gitVersion;
  } catch {
    return "unknown version";
  }
}

/** The kubectls to run with, and why any of them is missing. */
export function kubectls(): { available: Kubectl[]; missing: string[] } {
  const available: Kubectl[] = [];
  const missing: string[] = [];
  const reason = unsupportedReason();
  if (reason) missing.push(`.tools/kubectl: ${reason}`);
  else available.push({ label: `${TOOLS.kubectl.version} (.tools)`, path: ensureTools().kubectl });
  const other = onPath();
  if (other) available.push({ label: `${clientVersion(other)} (${process.env.KUBECTL_BIN ? "KUBECTL_BIN" : "PATH"})`, path: other });
  else missing.push("kubectl on PATH: none (Debian package kubernetes-client, or set KUBECTL_BIN)");
  return { available, missing };
}
