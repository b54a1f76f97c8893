/** Go `%.0f`: nearest integer, exact halves to even (12.5 → 12, 37.5 → 38). */
export function pct(x: number): string {
  if (!Number.isFinite(x)) return Number.isNaN(x) ? "NaN" : x > 0 ? "+Inf" : "-Inf";
  const floor = Math.floor(x);
  const diff = x - floor;
  let r: number;
  if (diff > 0.5) r = floor + 1;
  else if (diff < 0.5) r = floor;
  else r = floor % 2 === 0 ? floor : floor + 1;
  return Object.is(r, -0) ? "-0" : String(r);
}
