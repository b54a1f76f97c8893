import { mergeConfig } from "vitest/config";
import base from "../vitest.base.ts";

// The benchmarks' own helpers live in lib/, their tests beside them.
export default mergeConfig(base, { test: { include: ["lib/**/*.test.ts"] } });
