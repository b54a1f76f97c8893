// Spec §4.1 and §9.3: what the ClusterVersion history says about the update.
import type { UpdateHistory } from "./types.js";

/** Same version, different image in the two newest entries: a multi-arch migration. */
export function isMultiArch(history: readonly UpdateHistory[]): boolean {
  const [h0, h1] = history;
  return h0 !== undefined && h1 !== undefined && h0.version === h1.version && h0.image !== h1.image;
}

export function targetVersionText(history: readonly UpdateHistory[]): string {
  const [h0, h1] = history;
  const target = h0 ? (h0.version ?? "") : "unknown";
  if (history.length === 1) return `${target} (a new install)`;
  const previous = h1 ? (h1.version ?? "") : "unknown";
  if (h1?.state === "Partial") return `${target} (from incomplete ${previous})`;
  if (isMultiArch(history)) return `${target} to Multi-Architecture`;
  return `${target} (from ${previous})`;
}
