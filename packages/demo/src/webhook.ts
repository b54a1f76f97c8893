// The lease webhook in the demo, as the chart installs it: a CA and serving certificate made at
// start (openssl, like the chart's self-signed mode; @lockstep/testing's createTestPki is a test-only
// dependency), the lease-coordinator serving it (ADMISSION_* env), and the chart's
// ValidatingWebhookConfiguration (deploy/helm/lockstep/templates/_lease-webhook.tpl with the
// chart's defaults, in the form it renders for Kubernetes 1.28+: matchConditions; updates, cordons
// and evicting taints, and power-off fail closed; packages/chart-test checks the two agree)
// registered in kube-sim, which reaches the Service through its webhookServices map and evaluates
// the matchConditions as kube-apiserver does.
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { request } from "node:https";
import { join } from "node:path";

/** The Service the chart's configuration names (release `lockstep` in namespace `lockstep`). */
export const WEBHOOK_SERVICE = { namespace: "lockstep", name: "lockstep-lease-coordinator", port: 9443, path: "/validate" } as const;
export const WEBHOOK_CONFIGURATION = "lockstep-leases";
const DESIRED = "machineconfiguration.openshift.io/desiredConfig";

export interface WebhookTls {
  caPem: Buffer;
  certPath: string;
  keyPath: string;
}

/** A CA and a serving certificate for the Service's DNS name (what kube-apiserver verifies) and 127.0.0.1. */
export function createWebhookTls(dir: string): WebhookTls {
  mkdirSync(dir, { recursive: true });
  const ssl = (...args: string[]) => {
    try {
      execFileSync("openssl", args, { cwd: dir, stdio: "pipe" });
    } catch (err) {
      const e = err as NodeJS.ErrnoException & { stderr?: Buffer };
      if (e.code === "ENOENT") throw new Error("the demo's lease webhook needs openssl on PATH to make its serving certificate");
      throw new Error(`openssl ${args[0]} failed: ${e.stderr?.toString().trim() || e.message}`);
    }
  };
  const ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];
  const host = `${WEBHOOK_SERVICE.name}.${WEBHOOK_SERVICE.namespace}.svc`;
  ssl("req", "-x509", ...ec, "-keyout", "ca.key", "-out", "ca.crt", "-days", "2", "-subj", "/CN=lockstep-demo-webhook-ca");
  writeFileSync(join(dir, "server.ext"), `subjectAltName=DNS:${host},DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n`);
  ssl("req", ...ec, "-keyout", "server.key", "-out", "server.csr", "-subj", `/CN=${host}`);
  ssl("x509", "-req", "-in", "server.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial", "-out", "server.crt", "-days", "2", "-extfile", "server.ext");
  return { caPem: readFileSync(join(dir, "ca.crt")), certPath: join(dir, "server.crt"), keyPath: join(dir, "server.key") };
}

/** Kubernetes' own NoExecute taint keys (the lease-coordinator's and the chart's default exemptions). */
const EXEMPT_TAINTS = [
  "node.kubernetes.io/not-ready",
  "node.kubernetes.io/unreachable",
  "node.kubernetes.io/unschedulable",
  "node.kubernetes.io/memory-pressure",
  "node.kubernetes.io/disk-pressure",
  "node.kubernetes.io/pid-pressure",
  "node.kubernetes.io/network-unavailable",
  "node.cloudprovider.kubernetes.io/uninitialized",
  "node.cloudprovider.kubernetes.io/shutdown",
];

/** The chart's node-disruptions condition, word for word as it renders with the default values. */
const NODE_DISRUPTIONS = [
  "has(object.spec) && (",
  "(has(object.spec.unschedulable) && object.spec.unschedulable == true &&",
  "!(has(oldObject.spec) && has(oldObject.spec.unschedulable) && oldObject.spec.unschedulable == true)) ||",
  "(has(object.spec.taints) && object.spec.taints.exists(t,",
  "(t.key == 'node.kubernetes.io/out-of-service' ||",
  `(t.effect == 'NoExecute' && !(t.key in [${EXEMPT_TAINTS.map((k) => `'${k}'`).join(", ")}]) && ![].exists(p, t.key.startsWith(p)))) &&`,
  "!(has(oldObject.spec) && has(oldObject.spec.taints) && oldObject.spec.taints.exists(o,",
  "o.key == t.key && o.effect == t.effect && (has(o.value) ? o.value : '') == (has(t.value) ? t.value : ''))))))",
].join(" ");

/** The chart's five webhooks with its default failure policies and timeouts (Kubernetes 1.28+ form). */
export function leaseWebhookConfiguration(caPem: Buffer): Record<string, unknown> {
  const clientConfig = { service: { ...WEBHOOK_SERVICE }, caBundle: caPem.toString("base64") };
  const common = { clientConfig, sideEffects: "None", admissionReviewVersions: ["v1"], timeoutSeconds: 5 };
  return {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "ValidatingWebhookConfiguration",
    metadata: { name: WEBHOOK_CONFIGURATION, labels: { "app.kubernetes.io/part-of": "lockstep" } },
    webhooks: [
      {
        name: "updates.leases.lockstep.io",
        ...common,
        rules: [{ apiGroups: [""], apiVersions: ["v1"], resources: ["nodes"], operations: ["UPDATE"], scope: "Cluster" }],
        matchConditions: [
          {
            name: "desired-config-changes",
            expression: `has(object.metadata.annotations) && '${DESIRED}' in object.metadata.annotations && !(has(oldObject.metadata.annotations) && '${DESIRED}' in oldObject.metadata.annotations && oldObject.metadata.annotations['${DESIRED}'] == object.metadata.annotations['${DESIRED}'])`,
          },
        ],
        failurePolicy: "Fail",
      },
      {
        name: "power-off.leases.lockstep.io",
        ...common,
        rules: [{ apiGroups: ["metal3.io"], apiVersions: ["*"], resources: ["baremetalhosts"], operations: ["UPDATE"], scope: "Namespaced" }],
        matchConditions: [
          { name: "powers-off-or-on", expression: "has(object.spec.online) && (object.spec.online == false || !has(oldObject.spec.online) || oldObject.spec.online == false)" },
        ],
        failurePolicy: "Fail",
      },
      {
        // Cordons and evicting taints fail closed: a replica dying mid-call must not let one through.
        name: "node-disruptions.leases.lockstep.io",
        ...common,
        rules: [{ apiGroups: [""], apiVersions: ["v1"], resources: ["nodes"], operations: ["UPDATE"], scope: "Cluster" }],
        matchConditions: [{ name: "cordons-or-evicting-taints", expression: NODE_DISRUPTIONS }],
        failurePolicy: "Fail",
      },
      {
        name: "others.leases.lockstep.io",
        ...common,
        rules: [
          { apiGroups: [""], apiVersions: ["v1"], resources: ["nodes"], operations: ["DELETE"], scope: "Cluster" },
          { apiGroups: [""], apiVersions: ["v1"], resources: ["pods/eviction"], operations: ["CREATE"], scope: "Namespaced" },
          { apiGroups: ["machine.openshift.io"], apiVersions: ["*"], resources: ["machines"], operations: ["UPDATE", "DELETE"], scope: "Namespaced" },
          { apiGroups: ["self-node-remediation.medik8s.io"], apiVersions: ["*"], resources: ["selfnoderemediations"], operations: ["CREATE"], scope: "Namespaced" },
          { apiGroups: ["fence-agents-remediation.medik8s.io"], apiVersions: ["*"], resources: ["fenceagentsremediations"], operations: ["CREATE"], scope: "Namespaced" },
        ],
        failurePolicy: "Ignore",
      },
      {
        // Every pod deletion matches: fail open, a short timeout, and never the kubelets' or kube-system's.
        name: "pod-deletes.leases.lockstep.io",
        ...common,
        timeoutSeconds: 3,
        rules: [{ apiGroups: [""], apiVersions: ["v1"], resources: ["pods"], operations: ["DELETE"], scope: "Namespaced" }],
        matchConditions: [
          {
            name: "not-kubelet-or-kube-system",
            expression: "!request.userInfo.username.startsWith('system:node:') && !request.userInfo.username.startsWith('system:serviceaccount:kube-system:')",
          },
        ],
        failurePolicy: "Ignore",
      },
    ],
  };
}

/** Resolves once the webhook answers its health check over TLS verified with `caPem`. */
export async function waitForWebhook(port: number, caPem: Buffer, timeoutMs: number): Promise<void> {
  const ok = () =>
    new Promise<boolean>((resolve) => {
      const req = request({ host: "127.0.0.1", port, path: "/healthz", ca: caPem, servername: "localhost", agent: false, timeout: 2_000 }, (res) => {
        res.resume();
        resolve(res.statusCode === 200);
      });
      req.on("error", () => resolve(false));
      req.on("timeout", () => req.destroy());
      req.end();
    });
  const end = Date.now() + timeoutMs;
  while (!(await ok())) {
    if (Date.now() > end) throw new Error(`the lease webhook on 127.0.0.1:${port} did not answer within ${Math.round(timeoutMs / 1000)} s`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Creates the configuration through the API (as `helm install` does). */
export async function registerLeaseWebhook(kubeUrl: string, caPem: Buffer): Promise<void> {
  const res = await fetch(`${kubeUrl}/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json" },
    body: JSON.stringify(leaseWebhookConfiguration(caPem)),
  });
  if (res.status !== 201) throw new Error(`registering the lease webhook: HTTP ${res.status} ${(await res.text()).slice(0, 300)}`);
}
