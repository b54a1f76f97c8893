// What a node would run if a proposed MachineConfig were added to its pool: the MCO merges every
// MachineConfig of a pool into one rendered config, so a partial MachineConfig is laid over the
// node's current rendered config (files by path and units by name replaced or appended, kernel
// arguments and extensions appended once, osImageURL and kernelType replaced when set, FIPS
// enabled if either enables it, SSH keys appended per user). A proposal named `rendered-*` is
// already a whole rendered config and replaces the current one. Pure.
import type { MachineConfigState } from "@lockstep/contracts";
import type { NormalizedMachineConfig } from "@lockstep/disruption";

export const isRendered = (mc: { name: string }): boolean => mc.name.startsWith("rendered-");

function appendOnce(base: readonly string[], extra: readonly string[]): string[] {
  const out = [...base];
  for (const x of extra) if (!out.includes(x)) out.push(x);
  return out;
}

function replaceOrAppend<T>(base: readonly T[], extra: readonly T[], key: (t: T) => string): T[] {
  const out = [...base];
  for (const item of extra) {
    const i = out.findIndex((b) => key(b) === key(item));
    if (i >= 0) out[i] = item;
    else out.push(item);
  }
  return out;
}

export function overlayMachineConfig(current: MachineConfigState, proposed: NormalizedMachineConfig): NormalizedMachineConfig {
  if (isRendered(proposed)) return proposed;
  const users = replaceOrAppend(
    current.sshUsers,
    proposed.sshUsers.map((u) => {
      const existing = current.sshUsers.find((c) => c.name === u.name);
      return { name: u.name, sshAuthorizedKeys: appendOnce(existing?.sshAuthorizedKeys ?? [], u.sshAuthorizedKeys) };
    }),
    (u) => u.name,
  );
  return {
    ...current,
    osImageUrl: proposed.osImageUrl || current.osImageUrl,
    kernelType: proposed.kernelType || current.kernelType,
    kernelArguments: appendOnce(current.kernelArguments, proposed.kernelArguments),
    extensions: appendOnce(current.extensions, proposed.extensions),
    fips: current.fips || proposed.fips,
    files: replaceOrAppend(current.files, proposed.files, (f) => f.path),
    units: replaceOrAppend(current.units, proposed.units, (u) => u.name),
    sshUsers: users,
  };
}
