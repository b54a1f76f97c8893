import { classifyUpdate, tryParseOcpVersion, type UpdateKind } from "@lockstep/versions";
import { targetBootImageWarning } from "./boot-image-skew.js";
import type { SkewEvaluation } from "./evaluate.js";
import { staleUpgradeable } from "./stale.js";
import { evaluateUpgradeable } from "./upgradeable.js";

/** Mirrors `CheckUpgradeResponse`. */
export interface CheckUpgradeResult {
  readonly allowed: boolean;
  /** Minor, ZStream, Major, Same, Downgrade; "" when a version cannot be parsed. */
  readonly kind: UpdateKind | "";
  /** Blocking reasons (bypassed ones too, when forced). */
  readonly reasons: readonly string[];
  readonly message: string;
  /** The block was bypassed by force; recorded as the CVO records accepted risks. */
  readonly forced: boolean;
  readonly warnings: readonly string[];
}

/**
 * Would an update to `target` be accepted? Mirrors the main CVO's `ClusterVersionUpgradeable`
 * precondition (mco-behaviors.md §5.5) with Lockstep's verdict judged against this target:
 * only Minor and Major updates are blocked; z-streams, re-targeting the running update and
 * downgrades pass (a downgrade is flagged); force bypasses a block and is recorded.
 *
 * `stale` (why the view is stale, as ClusterOperator lockstep says it, e.g. "the watcher has not
 * been heard from since 2026-11-25T12:00:41Z") fails closed as the ClusterOperator does: the
 * verdict is Upgradeable=False with reason StateStale and the same message, so a Minor or Major
 * update is refused (force still bypasses it, as the CVO's force does), and a z-stream passes but
 * says that it is not blocked by StateStale.
 */
export function checkUpgrade(report: SkewEvaluation, target: string, force: boolean, stale?: string): CheckUpgradeResult {
  const warnings: string[] = [];
  const parsedTarget = tryParseOcpVersion(target);
  if (!parsedTarget.ok) {
    return { allowed: false, kind: "", reasons: ["InvalidDesiredVersion"], message: parsedTarget.error.message, forced: false, warnings };
  }
  if (report.bootImage.warning) warnings.push(report.bootImage.warning);
  const bootWarning = targetBootImageWarning(report.bootImage, target, report.settings);
  if (bootWarning) warnings.push(bootWarning);

  const parsedCurrent = tryParseOcpVersion(report.currentVersion);
  if (!parsedCurrent.ok) {
    // The CVO treats an unparsable current version as a non-blocking InvalidCurrentVersion.
    warnings.push(`InvalidCurrentVersion: ${parsedCurrent.error.message}`);
    return { allowed: true, kind: "", reasons: [], message: `the current version is unknown; ${target} is not checked`, forced: false, warnings };
  }
  const { kind, blockable } = classifyUpdate(parsedCurrent.value, parsedTarget.value);
  const verdict =
    stale !== undefined
      ? staleUpgradeable(stale)
      : evaluateUpgradeable({
          lag: report.lag,
          bootImage: report.bootImage,
          settings: report.settings,
          currentVersion: report.currentVersion,
          targetVersion: target,
        });
  if (kind === "Downgrade") {
    warnings.push(`Downgrade from ${report.currentVersion} to ${target}: downgrades are not supported and are not checked for skew`);
  }
  if (!blockable) {
    const why =
      kind === "Same"
        ? `${target} is the current desired version; an update already under way is never stopped`
        : kind === "Downgrade"
          ? `${target} is older than ${report.currentVersion}`
          : verdict.status === "False"
            ? `z-stream update from ${report.currentVersion} to ${target} is not blocked by ${verdict.reason}`
            : `z-stream update from ${report.currentVersion} to ${target}`;
    return { allowed: true, kind, reasons: [], message: why, forced: false, warnings };
  }
  if (verdict.status === "True") {
    const message = verdict.message ? `${kind} update to ${target} is allowed. ${verdict.message}` : `${kind} update to ${target} is allowed`;
    return { allowed: true, kind, reasons: [], message, forced: false, warnings };
  }
  const reasons = verdict.blockingReasons;
  if (force) {
    return {
      allowed: true,
      kind,
      reasons,
      message: `Forced through blocking failures: ${reasons.join(", ")}: ${verdict.message}`,
      forced: true,
      warnings,
    };
  }
  return { allowed: false, kind, reasons, message: verdict.message, forced: false, warnings };
}
