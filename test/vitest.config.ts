import { defineConfig, mergeConfig } from "vitest/config";
import base from "../vitest.base.ts";

// Whole-system tests: minutes each, one at a time (they start many processes on two cores); and the
// architecture checks of the whole repository.
export default mergeConfig(base, defineConfig({ test: { include: ["e2e/**/*.test.ts", "architecture/**/*.test.ts"], testTimeout: 600_000, hookTimeout: 120_000, fileParallelism: false } }));
