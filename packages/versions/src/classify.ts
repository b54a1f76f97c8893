import { compareOcpVersions, type OcpVersion, parseOcpVersion } from "./ocp.js";

/**
 * How a target release relates to the current one. Names match `CheckUpgradeResponse.kind`.
 * - `Same`: equal precedence (build metadata aside).
 * - `ZStream`: newer, same major.minor (a pre-release moving to its release counts here too).
 * - `Minor`: newer, same major, different minor.
 * - `Major`: newer, different major.
 * - `Downgrade`: older, whatever the distance.
 */
export type UpdateKind = "Same" | "ZStream" | "Minor" | "Major" | "Downgrade";

export interface UpdateClassification {
  readonly kind: UpdateKind;
  /** Current and target share major.minor. */
  readonly sameMinor: boolean;
  /**
   * The main CVO blocks this update on `Upgradeable=False` (mco-behaviors.md §5.5): it passes
   * when target ≤ current or major.minor is unchanged, so only Minor and Major updates are blockable.
   */
  readonly blockable: boolean;
}

export function classifyUpdate(current: OcpVersion | string, target: OcpVersion | string): UpdateClassification {
  const cur = typeof current === "string" ? parseOcpVersion(current) : current;
  const tgt = typeof target === "string" ? parseOcpVersion(target) : target;
  const sameMinor = cur.major === tgt.major && cur.minor === tgt.minor;
  const order = compareOcpVersions(tgt, cur);
  let kind: UpdateKind;
  if (order === 0) kind = "Same";
  else if (order < 0) kind = "Downgrade";
  else if (cur.major !== tgt.major) kind = "Major";
  else if (cur.minor !== tgt.minor) kind = "Minor";
  else kind = "ZStream";
  return { kind, sameMinor, blockable: kind === "Minor" || kind === "Major" };
}
