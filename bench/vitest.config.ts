import { mergeConfig } from "vitest/config";
import base from "../vitest.base.ts";

// The benchmarks' own helpers live in lib/, their tests beside them; run-all.test.ts is the smoke
// run of every bench (BENCH_QUICK=1).
export default mergeConfig(base, { test: { include: ["lib/**/*.test.ts", "run-all.test.ts"] } });
