import { describe, expect, it } from "vitest";
import { collapseActions, computeDecision, type EngineOptions, type NdpDecision } from "./engine.js";
import { resolvePolicies } from "./merge.js";
import { normalizeMachineConfig } from "./machine-config.js";
import { decisionToProto } from "./proto.js";
import type { EffectiveRules, NdpAction } from "./types.js";
import {
  SPEC_DEFAULTS_OBJECT,
  SPEC_DEFAULT_FILES,
  adminPolicy,
  daemonReload,
  drain,
  mc,
  none,
  reboot,
  reload,
  restart,
  special,
  type FileSpec,
  type McSpec,
} from "./__fixtures__/mc.js";
import { BASE_REGISTRIES, RELEASE, SEARCH, registriesConf } from "./__fixtures__/registries.js";

const rulesWith = (...admin: unknown[]): EffectiveRules => resolvePolicies([SPEC_DEFAULTS_OBJECT, ...admin]).rules;
const DEFAULTS = rulesWith();

const REG = "/etc/containers/registries.conf";
const POLICY_JSON = "/etc/containers/policy.json";
const KUBELET_CONFIG = "/var/lib/kubelet/config.json";
const USER_CA = "/etc/pki/ca-trust/source/anchors/openshift-config-user-ca-bundle.crt";
const crio = reload("crio.service");

const regBase = registriesConf(SEARCH, BASE_REGISTRIES);
const regSafe = registriesConf(SEARCH, [
  { location: RELEASE, mirrors: [{ location: "mirror.example.com/ocp/release", pullFromMirror: "digest-only" }, { location: "m2.example.com/release", pullFromMirror: "digest-only" }] },
]);
const regUnsafe = registriesConf(SEARCH, [{ location: RELEASE, mirrors: [] , mirrorByDigestOnly: false }]);

/** Base files every config carries, so a change touches only what a test names. */
const BASE_FILES: FileSpec[] = [
  { path: POLICY_JSON, contents: "{}" },
  { path: KUBELET_CONFIG, contents: "{}" },
  { path: REG, contents: regBase },
  { path: USER_CA, contents: "ca-1" },
  { path: "/etc/containers/registries.d/acme.yaml", contents: "docker: {}" },
  { path: "/etc/motd", contents: "hi" },
  { path: "/etc/example/test", contents: "1" },
  { path: "/etc/example/other", contents: "1" },
  { path: "/etc/examples.conf", contents: "1" },
  { path: "/etc/app/cert.pem", contents: "1" },
];

/** A new config: the base with the named paths edited (or added) and the given overrides. */
function edited(paths: string[], overrides: McSpec = {}, contents: Record<string, string> = {}): McSpec {
  const files = BASE_FILES.map((f) => (paths.includes(f.path) ? { ...f, contents: contents[f.path] ?? `${f.contents}-edited` } : f));
  for (const p of paths) if (!files.some((f) => f.path === p)) files.push({ path: p, contents: contents[p] ?? "new" });
  return { files, ...overrides };
}

function decide(newSpec: McSpec, rules: EffectiveRules = DEFAULTS, opts?: EngineOptions, oldSpec: McSpec = { files: BASE_FILES }): NdpDecision {
  return computeDecision(mc(oldSpec), mc(newSpec), rules, opts);
}

describe("every default rule (mco-behaviors.md §2.4)", () => {
  const rows = SPEC_DEFAULT_FILES.filter((r) => r.path !== REG);
  it.each(rows.map((r, i) => ({ ...r, index: SPEC_DEFAULT_FILES.indexOf(r), i })))("$path", ({ path, actions, directory, index }) => {
    const target = directory ? `${path}/lockstep-test.conf` : path;
    const d = decide(edited([target]));
    const expected = actions.every((a) => a.type === "None") ? [none] : actions;
    expect(d.actions).toEqual(expected);
    expect(d.drain).toBe(false);
    expect(d.reboot).toBe(false);
    expect(d.trace).toEqual([
      {
        kind: "file",
        key: target,
        change: BASE_FILES.some((f) => f.path === target) ? "changed" : "added",
        source: { policy: "lockstep-defaults", default: true, rule: `spec.files[${index}]` },
        matchedPath: path,
        actions,
      },
    ]);
  });

  it("/etc/containers/registries.conf → Special (drain only if unsafe)", () => {
    const d = decide(edited([REG], {}, { [REG]: regSafe }));
    expect(d.actions).toEqual([special]);
    expect(d.drain).toBe(false);
    expect(d.trace[0]!.source?.rule).toBe("spec.files[3]");
  });

  it("unit iri-registry.service → DaemonReload, Restart iri-registry.service", () => {
    const d = decide({ files: BASE_FILES, units: [{ name: "iri-registry.service", contents: "[Unit]\n" }] });
    expect(d.actions).toEqual([daemonReload, restart("iri-registry.service")]);
    expect(d.drain).toBe(false);
    expect(d.trace).toEqual([
      { kind: "unit", key: "iri-registry.service", change: "added", source: { policy: "lockstep-defaults", default: true, rule: "spec.units[0]" }, actions: [daemonReload, restart("iri-registry.service")] },
    ]);
  });

  it("sshkey → None", () => {
    const d = decide({ files: BASE_FILES, sshKeys: ["ssh-ed25519 NEW"] });
    expect(d).toMatchObject({ actions: [none], drain: false, reboot: false });
    expect(d.trace).toEqual([{ kind: "sshkey", key: "passwd", change: "changed", source: { policy: "lockstep-defaults", default: true, rule: "spec.sshkey" }, actions: [none] }]);
  });
});

describe("action computation rules (mco-behaviors.md §2.6–§2.8)", () => {
  it("no change → [None], no drain, empty trace", () => {
    expect(decide({ files: BASE_FILES })).toEqual({
      actions: [none],
      drain: false,
      reboot: false,
      trace: [],
      drainTrace: { table: false, reason: "no Reboot, Drain or Special action", singleReplicaOverride: false },
    });
  });

  it("a file without a rule reboots and drains, and the trace says why", () => {
    const d = decide(edited(["/etc/motd"]));
    expect(d).toMatchObject({ actions: [reboot], drain: true, reboot: true });
    expect(d.trace).toEqual([{ kind: "file", key: "/etc/motd", change: "changed", actions: [reboot], note: "no rule matches this path" }]);
  });

  it("a removed file goes through its rule; a removed file without a rule reboots", () => {
    const without = (p: string) => ({ files: BASE_FILES.filter((f) => f.path !== p) });
    expect(decide(without(POLICY_JSON)).actions).toEqual([crio]);
    expect(decide(without(POLICY_JSON)).trace[0]!.change).toBe("removed");
    expect(decide(without("/etc/motd")).actions).toEqual([reboot]);
  });

  it("an added file under a default directory rule", () => {
    expect(decide(edited(["/etc/nmstate/openshift/eth0.yml"])).actions).toEqual([none]);
  });

  it("a unit without a rule reboots; a unit rule written by an admin applies", () => {
    const change = { files: BASE_FILES, units: [{ name: "my.service", contents: "x" }] };
    expect(decide(change).actions).toEqual([reboot]);
    const rules = rulesWith(adminPolicy("units", { units: [{ name: "my.service", actions: [restart("my.service")] }] }));
    expect(decide(change, rules)).toMatchObject({ actions: [restart("my.service")], drain: false });
  });

  it.each<[string, McSpec]>([
    ["osImageURL", { osImageURL: "quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:bbbb" }],
    ["kernelArguments", { kernelArguments: ["nosmt"] }],
    ["fips", { fips: true }],
    ["kernelType", { kernelType: "realtime" }],
    ["extensions", { extensions: ["kernel-devel"] }],
  ])("%s change → exactly [Reboot] with drain, even if every file has a rebootless rule", (field, overrides) => {
    const d = decide(edited([POLICY_JSON, KUBELET_CONFIG], overrides));
    expect(d).toMatchObject({ actions: [reboot], drain: true, reboot: true });
    expect(d.trace[0]).toMatchObject({ kind: "field", key: field, actions: [reboot] });
    // The files are still explained, with the rules that matched them.
    expect(d.trace.filter((t) => t.kind === "file").map((t) => t.matchedPath)).toEqual([POLICY_JSON, KUBELET_CONFIG]);
  });

  it("the force file reboots even without changes", () => {
    const d = decide({ files: BASE_FILES }, DEFAULTS, { forceFile: true });
    expect(d).toMatchObject({ actions: [reboot], drain: true });
    expect(d.trace).toEqual([{ kind: "field", key: "forceFile", change: "changed", actions: [reboot], note: "force file present" }]);
  });

  describe("None collapsing", () => {
    it("None is stripped when a real action remains", () => {
      expect(decide(edited([KUBELET_CONFIG, POLICY_JSON])).actions).toEqual([crio]);
    });
    it("only None actions → a single None", () => {
      expect(decide(edited([KUBELET_CONFIG, "/etc/nmstate/openshift/a.yml"], { sshKeys: ["k"] })).actions).toEqual([none]);
    });
    it("None next to Special leaves Special", () => {
      expect(decide(edited([KUBELET_CONFIG, REG], {}, { [REG]: regSafe })).actions).toEqual([special]);
    });
    it.each<[NdpAction[], NdpAction[]]>([
      [[], [none]],
      [[none, none], [none]],
      [[none, drain, none, crio], [drain, crio]],
      [[crio, crio], [crio, crio]],
      [[crio, reboot, none], [reboot]],
    ])("collapseActions(%j) = %j", (acc, out) => expect(collapseActions(acc)).toEqual(out));
  });

  describe("Reboot absorbing", () => {
    it("an admin Reboot rule absorbs the other files' actions", () => {
      const rules = rulesWith(adminPolicy("r", { files: [{ path: "/etc/app", actions: [reboot] }] }));
      expect(decide(edited([POLICY_JSON, "/etc/app/cert.pem", USER_CA]), rules).actions).toEqual([reboot]);
    });
    it("a file without a rule absorbs units and ssh keys", () => {
      const rules = rulesWith(adminPolicy("u", { units: [{ name: "my.service", actions: [drain] }] }));
      expect(decide({ ...edited(["/etc/motd"]), units: [{ name: "my.service" }], sshKeys: ["k"] }, rules).actions).toEqual([reboot]);
    });
    it("no sshkey rule at all: a passwd change has no rule and reboots", () => {
      const d = decide({ files: BASE_FILES, sshKeys: ["k"] }, { files: DEFAULTS.files, units: DEFAULTS.units });
      expect(d.actions).toEqual([reboot]);
      expect(d.trace[0]).toMatchObject({ kind: "sshkey", note: "no sshkey rule" });
    });
  });

  it("canonical order: removed files, changed files, added/changed/removed units, then sshkey", () => {
    const rules = rulesWith(
      adminPolicy("order", {
        files: [{ path: "/etc/app", actions: [reload("app.service")] }],
        units: ["a.service", "b.service", "c.service"].map((name) => ({ name, actions: [restart(name)] })),
        sshkey: { actions: [reload("sshd.service")] },
      }),
    );
    const old: McSpec = { files: BASE_FILES, units: [{ name: "b.service", contents: "1" }, { name: "c.service" }] };
    const next: McSpec = {
      ...edited([USER_CA, POLICY_JSON]),
      units: [{ name: "b.service", contents: "2" }, { name: "a.service" }],
      sshKeys: ["k"],
    };
    next.files = next.files!.filter((f) => f.path !== "/etc/app/cert.pem");
    const d = decide(next, rules, {}, old);
    expect(d.trace.map((t) => `${t.kind}:${t.change}:${t.key}`)).toEqual([
      "file:removed:/etc/app/cert.pem",
      `file:changed:${POLICY_JSON}`,
      `file:changed:${USER_CA}`,
      "unit:added:a.service",
      "unit:changed:b.service",
      "unit:removed:c.service",
      "sshkey:changed:passwd",
    ]);
    expect(d.actions).toEqual([
      reload("app.service"),
      crio,
      restart("coreos-update-ca-trust.service"),
      restart("crio.service"),
      restart("a.service"),
      restart("b.service"),
      restart("c.service"),
      reload("sshd.service"),
    ]);
  });

  it("a longer admin rule beats a default directory rule, an exact admin rule replaces the default", () => {
    const rules = rulesWith(
      adminPolicy("a", {
        files: [
          { path: "/etc/containers/registries.d/special", actions: [drain] },
          { path: POLICY_JSON, actions: [none] },
        ],
      }),
    );
    expect(decide(edited(["/etc/containers/registries.d/special/x.yaml"]), rules).actions).toEqual([drain]);
    expect(decide(edited(["/etc/containers/registries.d/other.yaml"]), rules).actions).toEqual([crio]);
    const d = decide(edited([POLICY_JSON]), rules);
    expect(d.actions).toEqual([none]);
    expect(d.trace[0]!.source).toEqual({ policy: "a", default: false, rule: "spec.files[1]" });
  });

  it("single-node clusters never drain; the trace keeps the table result", () => {
    const d = decide(edited(["/etc/motd"]), DEFAULTS, { controlPlaneTopology: "SingleReplica" });
    expect(d).toMatchObject({ actions: [reboot], drain: false, reboot: true });
    expect(d.drainTrace).toEqual({ table: true, reason: "Reboot", singleReplicaOverride: true });
    expect(decide(edited(["/etc/motd"]), DEFAULTS, { controlPlaneTopology: "HighlyAvailable" }).drain).toBe(true);
  });
});

describe("registries.conf and Special (mco-behaviors.md §2.9)", () => {
  it("a safe mirror addition reloads CRI-O without drain", () => {
    const d = decide(edited([REG], {}, { [REG]: regSafe }));
    expect(d).toMatchObject({ actions: [special], drain: false });
    expect(d.drainTrace).toEqual({ table: false, reason: "registries.conf change is safe", singleReplicaOverride: false, registries: { safe: true, reasons: [] } });
  });

  it("an unsafe change (mirror removed) drains and lists the reasons", () => {
    const d = decide(edited([REG], {}, { [REG]: regUnsafe }));
    expect(d).toMatchObject({ actions: [special], drain: true, reboot: false });
    expect(d.drainTrace.registries?.reasons).toEqual([`registry "${RELEASE}": mirror "mirror.example.com/ocp/release" was removed`]);
  });

  it("policy.json with a safe registries change: Reload crio then Special, no drain", () => {
    expect(decide(edited([POLICY_JSON, REG], {}, { [REG]: regSafe }))).toMatchObject({ actions: [crio, special], drain: false });
  });

  it("a Drain elsewhere drains regardless of the registries check", () => {
    const rules = rulesWith(adminPolicy("a", { files: [{ path: "/etc/app", actions: [drain] }] }));
    const d = decide(edited(["/etc/app/cert.pem", REG], {}, { [REG]: regSafe }), rules);
    expect(d).toMatchObject({ actions: [drain, special], drain: true });
    expect(d.drainTrace.registries).toBeUndefined();
  });

  it("registries.conf added for the first time is compared with an empty file", () => {
    const old = { files: BASE_FILES.filter((f) => f.path !== REG) };
    expect(decide({ files: BASE_FILES }, DEFAULTS, {}, old)).toMatchObject({ actions: [special], drain: false });
  });

  it("registries.conf removed entirely is unsafe", () => {
    expect(decide({ files: BASE_FILES.filter((f) => f.path !== REG) })).toMatchObject({ actions: [special], drain: true });
  });

  it("a user rule for registries.conf replaces Special and with it the safety check", () => {
    const rules = rulesWith(adminPolicy("a", { files: [{ path: REG, actions: [none] }] }));
    const d = decide(edited([REG], {}, { [REG]: regUnsafe }), rules);
    expect(d).toMatchObject({ actions: [none], drain: false });
    expect(d.drainTrace.registries).toBeUndefined();
  });

  it("undecodable TOML: the decision carries an error and assumes a drain", () => {
    const d = decide(edited([REG], {}, { [REG]: "[[registry\n" }));
    expect(d).toMatchObject({ actions: [special], drain: true });
    expect(d.error).toMatch(/^cannot parse registries.conf: TOML line 1/);
  });

  it("a state snapshot without registries.conf contents cannot be checked", () => {
    const old = normalizeMachineConfig(mc({ files: BASE_FILES }));
    old.files = old.files.map((f) => ({ ...f, contents: "" }));
    const d = computeDecision(old, mc(edited([REG], {}, { [REG]: regSafe })), DEFAULTS);
    expect(d.drain).toBe(true);
    expect(d.error).toBe(`contents of ${REG} are not available`);
  });
});

// mco-behaviors.md §2.11: main defaults, multi-node, no force file.
describe("worked examples (§2.11)", () => {
  const example = adminPolicy("example", {
    files: [
      { path: "/etc/example", actions: [crio] },
      { path: "/etc/example/test", actions: [none] },
    ],
  });
  const app = adminPolicy("app", { files: [{ path: "/etc/app", actions: [drain, reload("app.service")] }] });
  const regRemoved = registriesConf(SEARCH, [{ location: RELEASE, mirrors: [] }]);
  const cases: Array<{ n: number; name: string; next: McSpec; rules?: EffectiveRules; actions: NdpAction[]; drain: boolean }> = [
    { n: 1, name: "policy.json edited", next: edited([POLICY_JSON]), actions: [crio], drain: false },
    { n: 2, name: "kubelet config.json and policy.json edited", next: edited([KUBELET_CONFIG, POLICY_JSON]), actions: [crio], drain: false },
    {
      n: 3,
      name: "policy.json, registries.d/acme.yaml and the user CA bundle edited",
      next: edited([POLICY_JSON, "/etc/containers/registries.d/acme.yaml", USER_CA]),
      actions: [crio, crio, restart("coreos-update-ca-trust.service"), restart("crio.service")],
      drain: false,
    },
    { n: 4, name: "an IDMS digest-only mirror added", next: edited([REG], {}, { [REG]: regSafe }), actions: [special], drain: false },
    { n: 5, name: "an IDMS mirror removed", next: edited([REG], {}, { [REG]: regRemoved }), actions: [special], drain: true },
    { n: 6, name: "policy.json and /etc/motd edited", next: edited([POLICY_JSON, "/etc/motd"]), actions: [reboot], drain: true },
    { n: 7, name: "only an SSH key changed", next: { files: BASE_FILES, sshKeys: ["ssh-ed25519 NEW"] }, actions: [none], drain: false },
    { n: 8, name: "MachineConfig kernelArguments changed", next: { files: BASE_FILES, kernelArguments: ["nosmt"] }, actions: [reboot], drain: true },
    {
      n: 9,
      name: "unit iri-registry.service changed",
      next: { files: BASE_FILES, units: [{ name: "iri-registry.service", contents: "2" }] },
      actions: [daemonReload, restart("iri-registry.service")],
      drain: false,
    },
    { n: 10, name: "/etc/example/test edited (longest match wins)", next: edited(["/etc/example/test"]), rules: rulesWith(example), actions: [none], drain: false },
    { n: 11, name: "/etc/example/other edited", next: edited(["/etc/example/other"]), rules: rulesWith(example), actions: [crio], drain: false },
    { n: 12, name: "/etc/examples.conf edited (no boundary match)", next: edited(["/etc/examples.conf"]), rules: rulesWith(example), actions: [reboot], drain: true },
    {
      n: 13,
      name: "unit my.service (no policy) with policy.json",
      next: { ...edited([POLICY_JSON]), units: [{ name: "my.service", contents: "2" }] },
      actions: [reboot],
      drain: true,
    },
    { n: 14, name: "/etc/app/cert.pem edited under Drain, Reload app.service", next: edited(["/etc/app/cert.pem"]), rules: rulesWith(app), actions: [drain, reload("app.service")], drain: true },
    { n: 15, name: "only the order of storage.files changed", next: { files: [...BASE_FILES].reverse() }, actions: [none], drain: false },
  ];
  const oldFor = (n: number): McSpec => (n === 9 ? { files: BASE_FILES, units: [{ name: "iri-registry.service", contents: "1" }] } : n === 13 ? { files: BASE_FILES, units: [{ name: "my.service", contents: "1" }] } : { files: BASE_FILES });

  it.each(cases)("#$n $name", ({ n, next, rules, actions, drain: expectDrain }) => {
    const d = decide(next, rules ?? DEFAULTS, {}, oldFor(n));
    expect(d.actions).toEqual(actions);
    expect(d.drain).toBe(expectDrain);
    expect(d.reboot).toBe(actions.some((a) => a.type === "Reboot"));
    expect(d.error).toBeUndefined();
  });

  it("#15 says in the trace that only the order changed", () => {
    expect(decide({ files: [...BASE_FILES].reverse() }).trace).toEqual([
      { kind: "field", key: "storage.files", change: "changed", actions: [none], note: "only the order of entries changed" },
    ]);
  });

  it("state snapshots and raw objects give the same decision, also mixed", () => {
    for (const c of cases) {
      const oldRaw = mc(oldFor(c.n));
      const newRaw = mc(c.next);
      const fromRaw = computeDecision(oldRaw, newRaw, c.rules ?? DEFAULTS);
      const strip = (x: ReturnType<typeof normalizeMachineConfig>) => {
        const { passwdDigest: _d, ...s } = x;
        return s;
      };
      expect(computeDecision(strip(normalizeMachineConfig(oldRaw)), strip(normalizeMachineConfig(newRaw)), c.rules ?? DEFAULTS)).toEqual(fromRaw);
      expect(computeDecision(strip(normalizeMachineConfig(oldRaw)), newRaw, c.rules ?? DEFAULTS)).toEqual(fromRaw);
    }
  });
});

describe("decisionToProto", () => {
  it("flattens actions and names the matched rule", () => {
    const p = decisionToProto(decide(edited(["/etc/containers/registries.d/acme.yaml", "/etc/motd"])));
    expect(p).toEqual({
      actions: [{ type: "Reboot", serviceName: "" }],
      drain: true,
      reboot: true,
      trace: [
        { kind: "file", key: "/etc/containers/registries.d/acme.yaml", policy: "lockstep-defaults", rule: "spec.files[4] (/etc/containers/registries.d)", actions: [{ type: "Reload", serviceName: "crio.service" }] },
        { kind: "file", key: "/etc/motd", policy: "", rule: "", actions: [{ type: "Reboot", serviceName: "" }] },
      ],
      unreconcilable: "",
    });
  });
});
