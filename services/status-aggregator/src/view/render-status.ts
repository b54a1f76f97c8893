// The text of `lockstep status`: exactly `oc adm upgrade status` (the insights package's render),
// with Lockstep's own insights inside the Update Health section while an update runs. When the
// cluster is not updating oc prints one line; Lockstep's insights (a blocked next update, a held
// node) matter most then, so they follow that line in their own section. Without any, the text is
// byte-identical to oc's. Pure.
import {
  type Details,
  type Evaluation,
  type HealthInsight,
  SECOND,
  areaEnabled,
  isZeroTime,
  render,
  shortDuration,
  tabwrite,
  truncateDuration,
} from "@lockstep/insights";

function since(i: HealthInsight, now: bigint): string {
  return isZeroTime(i.startedAt) ? "-" : shortDuration(truncateDuration(now - i.startedAt, SECOND));
}

export function renderStatus(evaluation: Evaluation, extra: readonly HealthInsight[], details: Details): string {
  const text = render(evaluation, details);
  if (!evaluation.notUpdating || extra.length === 0) return text;
  let out = `${text}\n= Lockstep =\n`;
  let table = "SINCE\tLEVEL\tIMPACT\tMESSAGE\n";
  for (const i of extra) table += `${since(i, evaluation.now)}\t${i.level}\t${i.impact}\t${i.summary}\n`;
  out += tabwrite(table);
  if (areaEnabled(details, "health")) {
    for (const i of extra) out += `\nMessage: ${i.summary}\n  Reference:   ${i.reference}\n  Description: ${i.description}\n`;
  }
  return out;
}
