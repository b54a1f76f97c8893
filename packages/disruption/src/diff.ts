// Differences between two normalised MachineConfigs (mco-behaviors.md §2.6 step 1), with changed
// files and units in Lockstep's canonical order (§2.7).
import type { MachineConfigFile, MachineConfigUnit } from "@lockstep/contracts";
import type { NormalizedMachineConfig } from "./machine-config.js";

/** Ordinal comparison of UTF-8 bytes (equals JS string order for ASCII). */
export function compareOrdinal(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, "utf8"), Buffer.from(b, "utf8"));
}

/** Upstream canonicalisation: anything but realtime / 64k-pages is the default kernel. */
export function canonicalKernelType(t: string): string {
  return t === "realtime" || t === "64k-pages" ? t : "default";
}

export type RebootField = "osImageURL" | "kernelArguments" | "fips" | "kernelType" | "extensions";
export const REBOOT_FIELDS: readonly RebootField[] = ["osImageURL", "kernelArguments", "fips", "kernelType", "extensions"];

export interface ChangedItem {
  key: string;
  change: "added" | "changed" | "removed";
}

export interface ConfigDiff {
  /** Reboot-forcing MachineConfig fields that differ, in REBOOT_FIELDS order. */
  rebootFields: RebootField[];
  /** The whole storage.files list differs (order-sensitive), even if no path changed. */
  filesListChanged: boolean;
  unitsListChanged: boolean;
  passwdChanged: boolean;
  /** Removed paths, then added-or-changed paths, each ascending (§2.7). */
  files: ChangedItem[];
  /** Added, then changed, then removed names, each ascending (§2.7). */
  units: ChangedItem[];
}

const sameList = (a: readonly string[], b: readonly string[]): boolean =>
  a.length === b.length && a.every((x, i) => x === b[i]);

function fileKey(f: MachineConfigFile): string {
  return JSON.stringify([f.path, f.mode ?? 0, f.modePresent ?? false, f.contentsDigest ?? "", f.overwrite ?? false]);
}

function unitKey(u: MachineConfigUnit): string {
  const dropins = (u.dropins ?? []).map((d) => [d.name, d.contentsDigest]);
  return JSON.stringify([u.name, u.contentsDigest ?? "", u.enabled ?? false, u.enabledPresent ?? false, u.mask ?? false, dropins]);
}

function passwdKey(c: NormalizedMachineConfig): string {
  return JSON.stringify((c.sshUsers ?? []).map((u) => [u.name, u.sshAuthorizedKeys ?? []]));
}

function byKey<T>(items: readonly T[], key: (t: T) => string): Map<string, T> {
  // Later duplicates win, as when upstream builds its map.
  return new Map(items.map((i) => [key(i), i]));
}

function changed<T>(
  oldItems: readonly T[],
  newItems: readonly T[],
  name: (t: T) => string,
  repr: (t: T) => string,
): { added: string[]; changed: string[]; removed: string[] } {
  const o = byKey(oldItems, name);
  const n = byKey(newItems, name);
  const added: string[] = [];
  const chg: string[] = [];
  const removed: string[] = [];
  for (const [k, v] of n) {
    const prev = o.get(k);
    if (prev === undefined) added.push(k);
    else if (repr(prev) !== repr(v)) chg.push(k);
  }
  for (const k of o.keys()) if (!n.has(k)) removed.push(k);
  added.sort(compareOrdinal);
  chg.sort(compareOrdinal);
  removed.sort(compareOrdinal);
  return { added, changed: chg, removed };
}

export function diffMachineConfigs(oldMc: NormalizedMachineConfig, newMc: NormalizedMachineConfig): ConfigDiff {
  const rebootFields: RebootField[] = [];
  if ((oldMc.osImageUrl ?? "") !== (newMc.osImageUrl ?? "")) rebootFields.push("osImageURL");
  if (!sameList(oldMc.kernelArguments ?? [], newMc.kernelArguments ?? [])) rebootFields.push("kernelArguments");
  if ((oldMc.fips ?? false) !== (newMc.fips ?? false)) rebootFields.push("fips");
  if (canonicalKernelType(oldMc.kernelType ?? "") !== canonicalKernelType(newMc.kernelType ?? "")) rebootFields.push("kernelType");
  if (!sameList(oldMc.extensions ?? [], newMc.extensions ?? [])) rebootFields.push("extensions");

  const oldFiles = oldMc.files ?? [];
  const newFiles = newMc.files ?? [];
  const oldUnits = oldMc.units ?? [];
  const newUnits = newMc.units ?? [];
  const f = changed(oldFiles, newFiles, (x) => x.path, fileKey);
  const u = changed(oldUnits, newUnits, (x) => x.name, unitKey);

  const passwdChanged =
    passwdKey(oldMc) !== passwdKey(newMc) ||
    (oldMc.passwdDigest !== undefined && newMc.passwdDigest !== undefined && oldMc.passwdDigest !== newMc.passwdDigest);

  return {
    rebootFields,
    filesListChanged: !sameList(oldFiles.map(fileKey), newFiles.map(fileKey)),
    unitsListChanged: !sameList(oldUnits.map(unitKey), newUnits.map(unitKey)),
    passwdChanged,
    files: [
      ...f.removed.map((key) => ({ key, change: "removed" as const })),
      ...[...f.added.map((key) => ({ key, change: "added" as const })), ...f.changed.map((key) => ({ key, change: "changed" as const }))].sort(
        (a, b) => compareOrdinal(a.key, b.key),
      ),
    ],
    units: [
      ...u.added.map((key) => ({ key, change: "added" as const })),
      ...u.changed.map((key) => ({ key, change: "changed" as const })),
      ...u.removed.map((key) => ({ key, change: "removed" as const })),
    ],
  };
}
