import { defineConfig } from "vitest/config";

// Shared by every package: the JSON report feeds the CI summary line (scripts/test.mjs).
export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    passWithNoTests: true,
    testTimeout: 60_000,
    hookTimeout: 60_000,
    reporters: ["default", ["json", { outputFile: ".vitest-report.json" }]],
  },
});
