// gRPC TLS, rendered by the real helm: on by default with a CA and a serving certificate that helm
// generates (genCA / genSignedCert), kept across upgrades (lookup, exercised against kube-sim with
// `helm template --dry-run=server`); or a cert-manager Certificate; or the user's own Secret.
import { X509Certificate, createPrivateKey } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect, createServer, type Server } from "node:tls";
import { CoreV1Api } from "@kubernetes/client-node";
import { kubeConfigForUrl } from "@lockstep/kube/client-node";
import { kubeconfigYaml, startKubeSim, type KubeSim } from "@lockstep/kube-sim";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { renderChart, renderChartAgainst, type Manifest, type Values } from "./chart.js";
import { HelmError } from "./helm.js";
import { chartDir } from "./paths.js";
import { validateManifests } from "./validate.js";

const SERVICES = ["bootimage-updater", "lease-coordinator", "skew-enforcer", "status-aggregator", "watcher"];
const NS = "lockstep";

type Secret = Manifest & { type: string; data: Record<string, string> };
const secret = (ms: Manifest[], name: string) => ms.find((m) => m.kind === "Secret" && m.metadata.name === name) as Secret | undefined;
const pem = (s: Secret, key: string) => Buffer.from(s.data[key]!, "base64").toString("utf8");
const deployments = (ms: Manifest[]) => ms.filter((m) => m.kind === "Deployment") as any[];
const envOf = (d: any) => Object.fromEntries(d.spec.template.spec.containers[0].env.map((e: any) => [e.name, e.value]));

/** Every Service DNS name of every service, the way clients in the cluster reach them. */
function expectedDnsNames(prefix: string, ns: string, domain = "cluster.local"): string[] {
  return SERVICES.flatMap((s) => {
    const host = `${prefix}-${s}`;
    return [host, `${host}.${ns}`, `${host}.${ns}.svc`, `${host}.${ns}.svc.${domain}`];
  });
}

const sans = (cert: X509Certificate) => (cert.subjectAltName ?? "").split(", ").map((s) => s.replace(/^DNS:/, ""));

describe("default values: a generated CA and serving certificate", () => {
  const { manifests } = renderChart(chartDir, { namespace: NS });
  const ca = secret(manifests, "lockstep-grpc-ca")!;
  const tls = secret(manifests, "lockstep-grpc-tls")!;

  it("renders the CA Secret, the serving Secret and the CA ConfigMap, all valid", () => {
    expect(ca.type).toBe("kubernetes.io/tls");
    expect(Object.keys(ca.data).sort()).toEqual(["tls.crt", "tls.key"]);
    expect(tls.type).toBe("kubernetes.io/tls");
    expect(Object.keys(tls.data).sort()).toEqual(["ca.crt", "tls.crt", "tls.key"]);
    const cm = manifests.find((m) => m.kind === "ConfigMap" && m.metadata.name === "lockstep-grpc-ca") as any;
    expect(cm.data["ca.crt"].trim()).toBe(pem(ca, "tls.crt").trim());
    expect(validateManifests(manifests)).toEqual([]);
  });

  it("holds PEM that node's X509Certificate parses: a CA that signs a serving certificate for every Service name", () => {
    const caCert = new X509Certificate(pem(ca, "tls.crt"));
    const cert = new X509Certificate(pem(tls, "tls.crt"));
    expect(caCert.ca).toBe(true);
    expect(cert.ca).toBe(false);
    expect(pem(tls, "ca.crt")).toBe(pem(ca, "tls.crt"));
    expect(cert.checkIssued(caCert)).toBe(true);
    expect(cert.verify(caCert.publicKey)).toBe(true);
    expect(cert.checkPrivateKey(createPrivateKey(pem(tls, "tls.key")))).toBe(true);
    expect(caCert.checkPrivateKey(createPrivateKey(pem(ca, "tls.key")))).toBe(true);
    expect(cert.subject).toBe("CN=lockstep-grpc");
    expect(sans(cert).sort()).toEqual(expectedDnsNames("lockstep", NS).sort());
    for (const name of expectedDnsNames("lockstep", NS)) expect(cert.checkHost(name), name).toBe(name);
    expect(new Date(cert.validTo).getTime() - Date.now()).toBeGreaterThan(3000 * 86_400_000);
  });

  it("is accepted in a real TLS handshake by a client that trusts only the CA and dials a Service name", async () => {
    const server: Server = createServer({ cert: pem(tls, "tls.crt"), key: pem(tls, "tls.key") }, (s) => s.end("ok"));
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const port = (server.address() as { port: number }).port;
    try {
      const dial = (servername: string) =>
        new Promise<string>((resolve, reject) => {
          const s = connect({ host: "127.0.0.1", port, servername, ca: pem(ca, "tls.crt") }, () => s.once("data", (d) => resolve(String(d))));
          s.on("error", reject);
        });
      expect(await dial("lockstep-lease-coordinator.lockstep.svc")).toBe("ok");
      await expect(dial("lockstep-lease-coordinator.elsewhere.svc")).rejects.toThrow(/altnames|Hostname/);
    } finally {
      server.close();
    }
  });

  it("mounts the serving Secret in every service and switches liveness from the grpc probe to GET /healthz", () => {
    expect(deployments(manifests)).toHaveLength(5);
    for (const d of deployments(manifests)) {
      const pod = d.spec.template.spec;
      const c = pod.containers[0];
      expect(pod.volumes.find((v: any) => v.name === "grpc-tls")).toEqual({ name: "grpc-tls", secret: { secretName: "lockstep-grpc-tls" } });
      expect(c.volumeMounts).toContainEqual({ name: "grpc-tls", mountPath: "/etc/lockstep/tls", readOnly: true });
      expect(envOf(d)).toMatchObject({ GRPC_TLS_CERT: "/etc/lockstep/tls/tls.crt", GRPC_TLS_KEY: "/etc/lockstep/tls/tls.key" });
      expect(envOf(d).GRPC_TLS_REQUIRE_CLIENT_CERT).toBeUndefined();
      expect(c.livenessProbe.httpGet).toEqual({ path: "/healthz", port: "http" });
      expect(c.livenessProbe.grpc).toBeUndefined();
    }
  });

  it("follows fullnameOverride, the release namespace and the cluster domain in the names", () => {
    const r = renderChart(chartDir, { namespace: "ops", values: { fullnameOverride: "ls", global: { grpcTls: { clusterDomain: "corp.internal" } } } });
    const cert = new X509Certificate(pem(secret(r.manifests, "ls-grpc-tls")!, "tls.crt"));
    expect(sans(cert).sort()).toEqual(expectedDnsNames("ls", "ops", "corp.internal").sort());
  });

  it("uses the grpc liveness probe again, and no certificate, when TLS is off", () => {
    const r = renderChart(chartDir, { values: { global: { grpcTls: { enabled: false } }, leaseWebhook: { enabled: false } } });
    expect(r.manifests.filter((m) => m.kind === "Secret" || m.kind === "Certificate" || m.metadata.name.endsWith("-grpc-ca"))).toEqual([]);
    for (const d of deployments(r.manifests)) {
      expect(d.spec.template.spec.containers[0].livenessProbe.grpc).toBeDefined();
      expect(envOf(d).GRPC_TLS_CERT).toBeUndefined();
    }
  });
});

describe("helm upgrade keeps the generated certificates (lookup, against kube-sim)", () => {
  let sim: KubeSim;
  let dir: string;
  let kubeconfig: string;
  beforeAll(async () => {
    sim = await startKubeSim({ crds: "openshift" });
    dir = mkdtempSync(join(tmpdir(), "lockstep-chart-tls-"));
    kubeconfig = join(dir, "kubeconfig");
    writeFileSync(kubeconfig, kubeconfigYaml(sim), { mode: 0o600 });
    await kubeConfigForUrl(sim.url).makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name: NS } } });
  });
  afterAll(async () => {
    await sim?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("reuses the stored CA and serving certificate, and re-issues only a missing serving certificate from the same CA", async () => {
    const core = kubeConfigForUrl(sim.url).makeApiClient(CoreV1Api);
    const install = await renderChartAgainst(chartDir, kubeconfig, { namespace: NS });
    const stored = ["lockstep-grpc-ca", "lockstep-grpc-tls"].map((n) => secret(install.manifests, n)!);
    for (const s of stored) {
      const { source: _source, ...body } = s;
      await core.createNamespacedSecret({ namespace: NS, body: body as any });
    }

    const upgrade = await renderChartAgainst(chartDir, kubeconfig, { namespace: NS });
    expect(secret(upgrade.manifests, "lockstep-grpc-ca")!.data).toEqual(stored[0]!.data);
    expect(secret(upgrade.manifests, "lockstep-grpc-tls")!.data).toEqual(stored[1]!.data);
    expect((upgrade.manifests.find((m) => m.kind === "ConfigMap" && m.metadata.name === "lockstep-grpc-ca") as any).data["ca.crt"].trim()).toBe(pem(stored[0]!, "tls.crt").trim());

    // Deleting the serving Secret re-issues it from the kept CA (clients keep trusting it).
    await core.deleteNamespacedSecret({ namespace: NS, name: "lockstep-grpc-tls" });
    const reissue = await renderChartAgainst(chartDir, kubeconfig, { namespace: NS });
    const fresh = secret(reissue.manifests, "lockstep-grpc-tls")!;
    expect(fresh.data["tls.crt"]).not.toBe(stored[1]!.data["tls.crt"]);
    expect(fresh.data["ca.crt"]).toBe(stored[0]!.data["tls.crt"]);
    expect(new X509Certificate(pem(fresh, "tls.crt")).verify(new X509Certificate(pem(stored[0]!, "tls.crt")).publicKey)).toBe(true);
  });
});

describe("other certificate sources", () => {
  it("certManager.issuerRef: a cert-manager Certificate for every Service name, no generated Secret", () => {
    const values: Values = { global: { grpcTls: { certManager: { issuerRef: { name: "platform-ca", kind: "ClusterIssuer" } } } } };
    const { manifests } = renderChart(chartDir, { namespace: NS, values });
    expect(manifests.filter((m) => m.kind === "Secret" || m.metadata.name.endsWith("-grpc-ca"))).toEqual([]);
    const certs = manifests.filter((m) => m.kind === "Certificate") as any[];
    expect(certs).toHaveLength(1);
    expect(certs[0].spec).toMatchObject({
      secretName: "lockstep-grpc-tls",
      issuerRef: { name: "platform-ca", kind: "ClusterIssuer", group: "cert-manager.io" },
      duration: "2160h",
      renewBefore: "360h",
    });
    expect([...certs[0].spec.dnsNames].sort()).toEqual(expectedDnsNames("lockstep", NS).sort());
    for (const d of deployments(manifests)) expect(d.spec.template.spec.volumes).toContainEqual({ name: "grpc-tls", secret: { secretName: "lockstep-grpc-tls" } });
    expect(validateManifests(manifests)).toEqual([]);
  });

  it("secretName: the user's Secret is mounted and nothing is generated", () => {
    const ca = "-----BEGIN CERTIFICATE-----\nX\n-----END CERTIFICATE-----\n";
    const { manifests } = renderChart(chartDir, { values: { global: { grpcTls: { secretName: "my-grpc-tls" } }, leaseWebhook: { caBundle: ca } } });
    expect(manifests.filter((m) => m.kind === "Secret" || m.kind === "Certificate" || m.metadata.name.endsWith("-grpc-ca"))).toEqual([]);
    for (const d of deployments(manifests)) expect(d.spec.template.spec.volumes).toContainEqual({ name: "grpc-tls", secret: { secretName: "my-grpc-tls" } });
  });

  it("refuses both at once with a message naming the two keys", () => {
    const values: Values = { global: { grpcTls: { secretName: "mine", certManager: { issuerRef: { name: "ca" } } } } };
    expect(() => renderChart(chartDir, { values })).toThrow(HelmError);
    expect(() => renderChart(chartDir, { values })).toThrow(/either secretName .* or certManager.issuerRef/);
  });
});

describe("client certificates", () => {
  it("requireClientCert: every service checks client certificates against ca.crt", () => {
    const { manifests } = renderChart(chartDir, { values: { global: { grpcTls: { requireClientCert: true } } } });
    for (const d of deployments(manifests)) expect(envOf(d)).toMatchObject({ GRPC_TLS_CA: "/etc/lockstep/tls/ca.crt", GRPC_TLS_REQUIRE_CLIENT_CERT: "true" });
  });

  // grpc-js asks for a client certificate only when it also demands one (createSsl's
  // checkClientCertificate), so any mode with mtls makes the lease-coordinator demand it.
  it.each([
    ["mtls", "true"],
    ["token,mtls", "true"],
  ])("LEASE_AUTH %s: the lease-coordinator alone gets the CA to verify callers' certificates (required: %s)", (mode, required) => {
    const { manifests } = renderChart(chartDir, { values: { leaseAuth: { mode } } });
    for (const d of deployments(manifests)) {
      const name = d.metadata.labels["app.kubernetes.io/component"];
      const lc = name === "lease-coordinator";
      expect(envOf(d).GRPC_TLS_CA, name).toBe(lc ? "/etc/lockstep/tls/ca.crt" : undefined);
      expect(envOf(d).GRPC_TLS_REQUIRE_CLIENT_CERT, name).toBe(lc ? required : undefined);
    }
  });

  it("LEASE_AUTH with mtls needs gRPC TLS", () => {
    expect(() => renderChart(chartDir, { values: { leaseAuth: { mode: "mtls" }, global: { grpcTls: { enabled: false } }, leaseWebhook: { enabled: false } } })).toThrow(/mtls needs global.grpcTls.enabled/);
  });
});
