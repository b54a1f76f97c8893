// The API server's refusals in the demo's event log: one line per kind of request, then at 10, 100, …
import { describe, expect, it } from "vitest";
import type { KubeSim } from "@lockstep/kube-sim";
import { describeAdmissionDenial, EventLog } from "./events.js";

type Call = KubeSim["admission"]["calls"][number];

const call = (o: Partial<Call>): Call =>
  ({
    uid: "u",
    configuration: "lockstep-leases",
    webhook: "updates.leases.lockstep.io",
    operation: "UPDATE",
    resource: { group: "", version: "v1", resource: "nodes" },
    subResource: "",
    namespace: "",
    name: "w1",
    userInfo: { username: "system:serviceaccount:openshift-machine-config-operator:machine-config-controller", groups: [] },
    url: "https://x",
    outcome: "denied",
    failurePolicy: "Fail",
    ignored: false,
    code: 403,
    message: 'admission webhook "updates.leases.lockstep.io" denied the request: node w1 is leased to admin@example.com',
    warnings: [],
    durationMs: 1,
    request: {},
    ...o,
  }) as Call;

describe("EventLog.followAdmission", () => {
  it("notes the first refusal of each request, counts one request refused by two webhooks once, and notes again at 10 and 100", () => {
    const admission = { calls: [], denials: () => [], clear: () => undefined } as unknown as KubeSim["admission"];
    const log = new EventLog();
    log.followAdmission(admission);
    for (let i = 0; i < 100; i++) {
      admission.onCall!(call({}));
      admission.onCall!(call({ webhook: "others.leases.lockstep.io" }));
    }
    admission.onCall!(call({ outcome: "allowed", name: "w2" }));
    admission.onCall!(call({ operation: "CREATE", subResource: "eviction", resource: { group: "", version: "v1", resource: "pods" }, namespace: "apps", name: "p1", userInfo: { username: "kube-sim-admin", groups: [] } }));
    const texts = log.events.filter((e) => e.fact === "admission.denied").map((e) => e.text);
    expect(texts).toHaveLength(4);
    expect(texts[0]).toBe(
      'API server refused: update node w1 by system:serviceaccount:openshift-machine-config-operator:machine-config-controller (HTTP 403): admission webhook "updates.leases.lockstep.io" denied the request: node w1 is leased to admin@example.com',
    );
    expect(texts[1]).toContain("— 10 times so far");
    expect(texts[2]).toContain("— 100 times so far");
    expect(texts[3]).toMatch(/^API server refused: evict pod apps\/p1 by kube-sim-admin \(HTTP 403\)/);
  });

  it("describes a refusal with its status code and message", () => {
    expect(describeAdmissionDenial(call({ code: 400, message: "no" }), 1)).toBe("API server refused: update node w1 by system:serviceaccount:openshift-machine-config-operator:machine-config-controller (HTTP 400): no");
  });
});
