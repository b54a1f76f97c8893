import base from "../../vitest.base.ts";
import { unsupportedReason } from "../../scripts/tools.mjs";

// Every test here runs the real helm; where its binary cannot run (not linux x86-64) and no
// HELM_BIN is given, the package's tests are skipped with the reason said once.
const reason = process.env.HELM_BIN ? undefined : unsupportedReason();
if (reason) console.warn(`chart tests skipped: ${reason}`);

export default reason ? { ...base, test: { ...base.test, include: [] } } : base;
