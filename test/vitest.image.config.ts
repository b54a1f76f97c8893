import { defineConfig } from "vitest/config";

// The image run as the chart runs it (image/): `npm run test:image`, as root. Not part of `npm test`
// (vitest.config.ts): it builds the image (mmdebstrap, umoci: root and apt) and runs the services with unshare
// and chroot. No JSON report, so `npm test`'s summary never counts it.
export default defineConfig({ test: { include: ["image/**/*.test.ts"], testTimeout: 600_000, hookTimeout: 900_000, fileParallelism: false } });
