import { describe, expect, it } from "vitest";
import { ANONYMOUS, callerFromCertificate, holderFor, ownsHolder, type Caller } from "./caller.js";

const alice: Caller = { subject: "alice", groups: ["system:authenticated"], uid: "u1", method: "token" };
const sa: Caller = { subject: "system:serviceaccount:openshift-machine-config-operator:machine-config-daemon", groups: [], uid: "", method: "token" };

describe("holderFor", () => {
  it.each([
    ["", "alice"],
    ["alice", "alice"],
    ["alice/maintenance-42", "alice/maintenance-42"],
  ])("lets alice act as %j → %j", (requested, holder) => {
    expect(holderFor(alice, requested)).toEqual({ ok: true, holder });
  });

  it.each(["bob", "alice/", "alicex", "alice2/x", "machine-config-controller/update", "system:serviceaccount:openshift-machine-config-operator:machine-config-daemon"])(
    "refuses alice acting as %j, naming who she is",
    (requested) => {
      const r = holderFor(alice, requested);
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.message).toContain('authenticated as "alice"');
    },
  );

  it("takes a service account's own name with a suffix", () => {
    expect(holderFor(sa, `${sa.subject}/ip-10-0-1-4`)).toEqual({ ok: true, holder: `${sa.subject}/ip-10-0-1-4` });
  });

  it("takes any name without authentication (auth none)", () => {
    expect(holderFor(ANONYMOUS, "machine-config-controller/update")).toEqual({ ok: true, holder: "machine-config-controller/update" });
  });
});

describe("ownsHolder", () => {
  it("is the subject or subject/suffix, never a prefix of another name", () => {
    expect(ownsHolder(alice, "alice")).toBe(true);
    expect(ownsHolder(alice, "alice/x")).toBe(true);
    expect(ownsHolder(alice, "alice/")).toBe(false);
    expect(ownsHolder(alice, "alicia")).toBe(false);
    expect(ownsHolder(alice, "")).toBe(false);
  });
});

describe("callerFromCertificate", () => {
  it("reads CN as the user and O as groups, like the Kubernetes API server", () => {
    expect(callerFromCertificate({ CN: "ops-robot", O: ["lockstep-admins", "ops"] })).toEqual({
      subject: "ops-robot",
      groups: ["lockstep-admins", "ops", "system:authenticated"],
      uid: "",
      method: "mtls",
    });
    expect(callerFromCertificate({ CN: "x", O: "one" })?.groups).toEqual(["one", "system:authenticated"]);
  });

  it("has no caller without a CN", () => {
    expect(callerFromCertificate({ O: "g" })).toBeUndefined();
    expect(callerFromCertificate(undefined)).toBeUndefined();
  });
});
