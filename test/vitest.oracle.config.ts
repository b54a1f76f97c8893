import { defineConfig } from "vitest/config";

// The whole system against a real kube-apiserver (scripts/oracle/): `npm run test:oracle:system`. Not part of
// `npm test` (vitest.config.ts), which must not need the oracle's build (root and apt); no JSON report, so
// `npm test`'s summary never counts it.
export default defineConfig({ test: { include: ["oracle/**/*.test.ts"], testTimeout: 600_000, hookTimeout: 300_000, fileParallelism: false } });
