// vSphere boot image rules (mco-behaviors.md §3.10.4). The template is replaced in place in
// vCenter (I/O, done by the edge); this decides which template, whether it must be re-imported
// from the stream's OVA, and whether providerSpec.template must change. The edge reports the vApp
// product version of the candidate template VMs it found in the workspace folder.

import type { VSphereFailureDomain } from "@lockstep/contracts";
import { deepCopy, isJsonObject, type JsonObject } from "./merge-patch.js";
import { error, patchFrom, skip, type PatchResult } from "./patch-result.js";
import { streamArchitecture, type Stream, type StreamArch } from "./stream.js";

export interface VSphereEnv {
  /** Infrastructure spec.platformSpec.vsphere is set. */
  readonly platformSpecPresent: boolean;
  readonly failureDomains: readonly VSphereFailureDomain[];
  readonly infrastructureName: string;
  /** Template VM name → vApp product version, for VMs inside the workspace folder; absent if not looked up. */
  readonly templates?: Readonly<Record<string, string>>;
}

interface Workspace {
  server: string;
  datacenter: string;
  datastore: string;
  folder: string;
  resourcePool: string;
  vmGroup: string;
}

const MAX_TEMPLATE_NAME = 80;

/** Go path.Clean for the slash-separated inventory paths vCenter uses. */
export function cleanPath(p: string): string {
  if (p === "") return ".";
  const rooted = p.startsWith("/");
  const out: string[] = [];
  for (const part of p.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") {
      if (out.length > 0 && out[out.length - 1] !== "..") out.pop();
      else if (!rooted) out.push("..");
      continue;
    }
    out.push(part);
  }
  const joined = out.join("/");
  return rooted ? `/${joined}` : joined || ".";
}

function readWorkspace(providerSpec: JsonObject): Workspace | { error: string } {
  const ws = providerSpec["workspace"];
  if (!isJsonObject(ws)) return { error: "providerSpec workspace must be an object" };
  const out = {} as Workspace;
  for (const f of ["server", "datacenter", "datastore", "folder", "resourcePool", "vmGroup"] as const) {
    const v = ws[f] ?? "";
    if (typeof v !== "string") return { error: `providerSpec workspace.${f} must be a string` };
    out[f] = v;
  }
  if (out.server === "") return { error: "providerSpec workspace.server is unset" };
  return out;
}

function fdResourcePool(fd: VSphereFailureDomain): string {
  // The installer's default pool when the failure domain names none.
  return fd.resourcePool !== "" ? fd.resourcePool : `${fd.computeCluster}/Resources`;
}

export function matchFailureDomain(ws: Workspace, fds: readonly VSphereFailureDomain[]): VSphereFailureDomain | undefined {
  return fds.find(
    (fd) =>
      fd.server === ws.server &&
      fd.datacenter === ws.datacenter &&
      fd.datastore === ws.datastore &&
      cleanPath(fdResourcePool(fd)) === cleanPath(ws.resourcePool) &&
      fd.vmGroup === ws.vmGroup,
  );
}

export function derivedTemplateName(infrastructureName: string, failureDomainName: string): string {
  return `${infrastructureName}-rhcos-${failureDomainName}`.slice(0, MAX_TEMPLATE_NAME);
}

/** The template names the edge must look up in the workspace folder (current, then derived). */
export function vsphereTemplateCandidates(providerSpec: JsonObject, env: Omit<VSphereEnv, "templates">): { folder: string; names: string[] } | undefined {
  const ws = readWorkspace(providerSpec);
  if ("error" in ws) return undefined;
  const fd = matchFailureDomain(ws, env.failureDomains);
  const names = new Set<string>();
  if (typeof providerSpec["template"] === "string" && providerSpec["template"] !== "") names.add(providerSpec["template"]);
  if (fd) names.add(derivedTemplateName(env.infrastructureName, fd.name));
  return { folder: ws.folder, names: [...names] };
}

export function patchVSphere(providerSpec: JsonObject, stream: Stream, _region: string, arch: StreamArch, env: VSphereEnv): PatchResult {
  if (!env.platformSpecPresent) return { action: "excluded", reason: "Infrastructure spec.platformSpec.vsphere is unset" };
  const ws = readWorkspace(providerSpec);
  if ("error" in ws) return error(ws.error);
  const current = providerSpec["template"] ?? "";
  if (typeof current !== "string") return error("providerSpec template must be a string");

  const fd = matchFailureDomain(ws, env.failureDomains);
  if (!fd) {
    return skip(
      `providerSpec workspace (server ${ws.server}, datacenter ${ws.datacenter}, datastore ${ws.datastore}, resourcePool ${ws.resourcePool}) ` +
        "does not match any vCenter/failure domain in the Infrastructure object; update this MachineSet's boot image by hand",
    );
  }
  const entry = streamArchitecture(stream, arch);
  if (!entry.ok) return error(entry.message);
  const vmware = entry.entry.vmware;
  if (!vmware) return error(`stream:${stream.name}: artifact 'vmware' not found`);
  if (!env.templates) return error(`vSphere templates in folder ${ws.folder} were not looked up`);

  const templateName = current !== "" && Object.hasOwn(env.templates, current) ? current : derivedTemplateName(env.infrastructureName, fd.name);
  const currentRelease = Object.hasOwn(env.templates, templateName) ? (env.templates[templateName] ?? "") : "";
  const needsImport = currentRelease !== vmware.release;
  if (!needsImport && templateName === current) {
    return { action: "upToDate", currentImage: `${current}@${currentRelease}`, targetImage: `${templateName}@${vmware.release}` };
  }
  if (needsImport && !vmware.ova) return error(`stream:${stream.name}: artifact 'vmware' has no ova disk`);

  const modified = deepCopy(providerSpec);
  modified["template"] = templateName;
  return patchFrom(providerSpec, modified, `${current}@${currentRelease}`, `${templateName}@${vmware.release}`, {
    // The template is replaced in place, so the providerSpec may not change: track the release.
    hotLoopValue: vmware.release,
    ...(needsImport && vmware.ova
      ? {
          templateUpdate: {
            templateName,
            targetRelease: vmware.release,
            currentRelease,
            ovaLocation: vmware.ova.location,
            ovaSha256: vmware.ova.sha256,
          },
        }
      : {}),
  });
}
