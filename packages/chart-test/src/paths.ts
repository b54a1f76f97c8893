// Repository paths the chart tests read (resolved from this package, never from the cwd).
import { fileURLToPath } from "node:url";

export const repoRoot = fileURLToPath(new URL("../../../", import.meta.url));
export const chartDir = fileURLToPath(new URL("../../../deploy/helm/lockstep/", import.meta.url));
export const servicesDir = fileURLToPath(new URL("../../../services/", import.meta.url));
