import type { PolicyConfig } from "./config.js";
import type { LeaseRecord } from "./lease-record.js";

export type Validity =
  | { status: "free"; why: string }
  | { status: "expired"; why: string }
  | { status: "held"; expiresInSeconds: number; adminHold: boolean; futureRenewTime: boolean };

/**
 * Whether a lease is held, judged on this replica's clock only. Remote timestamps never shorten a
 * hold: a record expires once it has stayed unchanged for leaseDuration + allowance since we first
 * saw it (client-go), and a renewTime in the future keeps it held (medik8s' skew hazard avoided),
 * though not beyond duration + maxClockSkew of observation so a broken clock cannot hold forever.
 */
export function leaseValidity(rec: LeaseRecord, firstSeenMs: number, nowMs: number, policy: PolicyConfig): Validity {
  if (rec.holder === "") return { status: "free", why: "no holder" };
  if (rec.corrupt !== undefined) return { status: "free", why: `corrupt lease: ${rec.corrupt}` };
  if (rec.holder.startsWith(policy.adminHolderPrefix)) {
    return { status: "held", expiresInSeconds: Number.POSITIVE_INFINITY, adminHold: true, futureRenewTime: false };
  }
  const observedAge = Math.max(0, (nowMs - firstSeenMs) / 1000);
  const renewAheadBy = rec.renewTime ? (rec.renewTime.getTime() - nowMs) / 1000 : 0;
  const futureRenewTime = renewAheadBy > policy.skewAllowanceSeconds;
  const horizon = rec.durationSeconds + (futureRenewTime ? policy.maxClockSkewSeconds : policy.skewAllowanceSeconds);
  if (observedAge > horizon) {
    return {
      status: "expired",
      why: futureRenewTime
        ? `renewTime ${rec.renewTimeRaw} is in the future but the record has not changed for ${Math.floor(observedAge)}s`
        : `not renewed for ${Math.floor(observedAge)}s (duration ${rec.durationSeconds}s)`,
    };
  }
  return { status: "held", expiresInSeconds: Math.max(0, horizon - observedAge), adminHold: false, futureRenewTime };
}
