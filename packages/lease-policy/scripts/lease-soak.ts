// Lease model soak: the randomised model of src/model.ts (the one model.test.ts runs over a
// few thousand seeds) over many more, with force, preemption, expiry, renew races, 409s, replica
// restarts and clock skew. Prints counts of grants, denials, preemptions and violations (must be 0)
// and the run time; exits 1 on any violation, printing the first seeds that broke.
// Run (from packages/lease-policy): node --import tsx scripts/lease-soak.ts [seeds] [first seed]
// Env: SOAK_SEEDS (100000), SOAK_FIRST (1), SOAK_FORCE_RATE (0.2); SOAK_TRACE=1 prints every
// decision and belief change (replay one failing seed: lease-soak.ts 1 <seed>).
import { addOutcomes, emptyOutcome, faultyWorldOptions, runModel } from "../src/model.js";

const seeds = Number(process.argv[2] ?? process.env.SOAK_SEEDS ?? 100_000);
const first = Number(process.argv[3] ?? process.env.SOAK_FIRST ?? 1);
const forceRate = Number(process.env.SOAK_FORCE_RATE ?? 0.2);
if (!Number.isInteger(seeds) || seeds <= 0 || !Number.isInteger(first)) {
  process.stderr.write("usage: lease-soak.ts [seeds > 0] [first seed]\n");
  process.exit(2);
}

const trace = process.env.SOAK_TRACE === "1" ? (line: string) => void process.stdout.write(`${line}\n`) : undefined;
const options = faultyWorldOptions({ forceRate, trace });
const started = performance.now();
let total = emptyOutcome();
let broken = 0;
let doubleHolders = 0;
let budgets = 0;
for (let seed = first; seed < first + seeds; seed++) {
  const o = runModel(seed, options);
  if (o.violations.length > 0) broken++;
  // Two believing holders of one node break the lease invariant; the rest are budget overruns.
  doubleHolders += o.violations.filter((v) => v.includes(" believed held by ")).length;
  budgets += o.violations.filter((v) => !v.includes(" believed held by ")).length;
  total = addOutcomes(total, { ...o, violations: total.violations.length < 5 ? o.violations.slice(0, 1) : [] });
  if ((seed - first + 1) % 10_000 === 0) process.stderr.write(`${seed - first + 1} seeds…\n`);
}
const seconds = (performance.now() - started) / 1000;
const { violations, ...counts } = total;
const rows: Array<[string, number | string]> = [
  ["seeds", `${seeds} (${first}..${first + seeds - 1})`],
  ["grants", counts.grants],
  ["denials", counts.denials],
  ["conflicts (409 → re-read)", counts.conflicts],
  ["preemptions (marks written)", counts.preemptions],
  ["preemptor grants (after release or expiry)", counts.preemptorGrants],
  ["renews refused as Preempted", counts.renewsPreempted],
  ["preemptions learned by watch", counts.learnedByWatch],
  ["holds ended at the holder's deadline", counts.expiries],
  ["replica restarts", counts.replicaRestarts],
  ["violations: two believing holders of a node", doubleHolders],
  ["violations: budget exceeded", budgets],
  ["seeds with violations", broken],
  ["run time", `${seconds.toFixed(1)} s`],
];
const width = Math.max(...rows.map(([k]) => k.length));
for (const [k, v] of rows) process.stdout.write(`${k.padEnd(width)}  ${v}\n`);
for (const v of violations) process.stdout.write(`VIOLATION ${v}\n`);
process.exit(broken === 0 ? 0 : 1);
