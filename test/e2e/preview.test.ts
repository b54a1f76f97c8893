// Issue 10 through the whole system: `lockstep preview` answers for a pool from the live state,
// and a NodeDisruptionPolicy rule added with kubectl changes the next preview.
import { execFile } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { startTestSystem, until } from "./system.js";

const run = promisify(execFile);
const cli = join(import.meta.dirname, "..", "..", "packages", "cli", "dist", "main.js");
const kubectl = process.env.KUBECTL_BIN ?? "kubectl";

const machineConfig = `apiVersion: machineconfiguration.openshift.io/v1
kind: MachineConfig
metadata:
  name: 50-myapp
  labels: { machineconfiguration.openshift.io/role: worker }
spec:
  config:
    ignition: { version: 3.4.0 }
    storage:
      files:
        - path: /etc/myapp/myapp.conf
          mode: 420
          contents: { source: "data:,listen%3D8080%0A" }
`;

const policy = `apiVersion: lockstep.io/v1alpha1
kind: NodeDisruptionPolicy
metadata:
  name: myapp
spec:
  files:
    - path: /etc/myapp/myapp.conf
      actions:
        - type: Restart
          restart: { serviceName: myapp.service }
`;

describe("whole system: disruption preview", () => {
  it("previews a MachineConfig for a pool and follows a rule added with kubectl", async () => {
    const t = await startTestSystem();
    try {
      const mcFile = join(t.env.runDir, "50-myapp.yaml");
      const policyFile = join(t.env.runDir, "myapp-policy.yaml");
      writeFileSync(mcFile, machineConfig);
      writeFileSync(policyFile, policy);
      const server = t.env.system.grpcAddress("status-aggregator");
      const preview = async () => (await run(process.execPath, [cli, "preview", "-f", mcFile, "--pool", "worker", "--server", server])).stdout;

      const before = await until("a preview of the worker pool", async () => {
        const out = await preview();
        return out.split("\n").filter((l) => l.includes(".compute.internal")).length === 4 ? out : undefined;
      });
      expect(before).toMatch(/file \/etc\/myapp\/myapp\.conf -> Reboot \(no rule matches\)/);
      expect(before).toMatch(/worker\s+rendered-worker-\S+\s+Reboot\s+yes\s+yes/); // ACTIONS DRAIN REBOOT

      await run(kubectl, ["--kubeconfig", t.env.kubeconfigPath, "apply", "--validate=false", "-f", policyFile]);
      const after = await until("the new rule in the preview", async () => {
        const out = await preview();
        return out.includes("Restart(myapp.service)") ? out : undefined;
      });
      expect(after).toMatch(/file \/etc\/myapp\/myapp\.conf -> Restart\(myapp\.service\) \(myapp: /);
      expect(after).toMatch(/worker\s+rendered-worker-\S+\s+Restart\(myapp\.service\)\s+no\s+no/);
    } finally {
      await t.stop();
    }
  });
});
