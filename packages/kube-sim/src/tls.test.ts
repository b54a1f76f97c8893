// kube-sim over HTTPS with its generated CA: the kubeconfig pins the CA (certificate-authority-data,
// no insecure-skip-tls-verify), client-node sends the token over TLS and is served, and a client
// that does not trust the CA is refused at the handshake.
import { request } from "node:https";
import * as k8s from "@kubernetes/client-node";
import { hasOpenssl } from "@lockstep/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { kubeConfigFor, startKubeSim, type KubeSim } from "./index.js";
import { generateServingTls, subjectAltNames } from "./tls.js";

describe("subjectAltNames", () => {
  it.each([
    ["127.0.0.1", ["IP:127.0.0.1", "IP:::1", "DNS:localhost"]],
    ["0.0.0.0", ["IP:127.0.0.1", "IP:::1", "DNS:localhost"]],
    ["10.1.2.3", ["IP:127.0.0.1", "IP:::1", "DNS:localhost", "IP:10.1.2.3"]],
    ["sim.example", ["IP:127.0.0.1", "IP:::1", "DNS:localhost", "DNS:sim.example"]],
  ])("%s → %j", (host, names) => expect(subjectAltNames(host)).toEqual(names));
});

describe.skipIf(!hasOpenssl())("kube-sim over HTTPS", () => {
  let sim: KubeSim;
  beforeAll(async () => {
    sim = await startKubeSim({ users: [{ token: "alice-token", name: "alice", uid: "1", groups: ["system:masters"] }], tls: generateServingTls() });
  });
  afterAll(() => sim?.stop());

  it("pins its CA in the kubeconfig", () => {
    expect(sim.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const kc = parse(sim.kubeconfig());
    expect(kc.clusters[0].cluster).toEqual({ server: sim.url, "certificate-authority-data": Buffer.from(sim.ca!).toString("base64") });
    expect(kc.users[0].user.token).toBe("alice-token");
  });

  it("serves client-node through the kubeconfig, token and CA included", async () => {
    const core = kubeConfigFor<k8s.KubeConfig>(sim, k8s.KubeConfig).makeApiClient(k8s.CoreV1Api);
    const list = await core.listNamespace();
    expect(list.items.map((n) => n.metadata?.name)).toContain("default");
  });

  it("is refused by a client that does not trust its CA", async () => {
    const err = await new Promise<Error>((resolve) => {
      const req = request(`${sim.url}/version`, { agent: false }, (res) => {
        res.resume();
        resolve(new Error(`answered ${res.statusCode}`));
      });
      req.on("error", resolve);
      req.end();
    });
    expect(err.message).toMatch(/self.signed|unable to verify|certificate/i);
  });
});
