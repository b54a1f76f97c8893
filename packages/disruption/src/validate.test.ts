import { describe, expect, it } from "vitest";
import {
  formatProblem,
  MSG_NONE_STANDALONE,
  MSG_REBOOT_STANDALONE,
  MSG_RELOAD,
  MSG_RESTART,
  MSG_SERVICE_NAME,
  MSG_SERVICE_SUFFIX,
  serviceNameProblems,
  validateNodeDisruptionPolicy,
  type PolicyProblem,
} from "./validate.js";
import { acceptedCondition } from "./status.js";
import { SPEC_DEFAULTS_OBJECT, adminPolicy, none, reboot, reload, restart, special } from "./__fixtures__/mc.js";

const withSpec = (spec: unknown, extra: Record<string, unknown> = {}) => ({
  apiVersion: "lockstep.io/v1alpha1",
  kind: "NodeDisruptionPolicy",
  metadata: { name: "p" },
  spec,
  ...extra,
});
const problems = (obj: unknown): PolicyProblem[] => {
  const r = validateNodeDisruptionPolicy(obj);
  return r.ok ? [] : r.problems;
};

describe("upstream messages", () => {
  it("are byte-exact (mco-behaviors.md §2.3)", () => {
    expect(MSG_REBOOT_STANDALONE).toBe("Reboot action can only be specified standalone, as it will override any other actions");
    expect(MSG_NONE_STANDALONE).toBe("None action can only be specified standalone, as it will override any other actions");
    expect(MSG_RELOAD).toBe("reload is required when type is Reload, and forbidden otherwise");
    expect(MSG_RESTART).toBe("restart is required when type is Restart, and forbidden otherwise");
    expect(MSG_SERVICE_SUFFIX).toBe(
      'Invalid ${SERVICETYPE} in service name. Expected format is ${NAME}${SERVICETYPE}, where ${SERVICETYPE} must be one of ".service", ".socket", ".device", ".mount", ".automount", ".swap", ".target", ".path", ".timer",".snapshot", ".slice" or ".scope".',
    );
    expect(MSG_SERVICE_NAME).toBe(
      String.raw`Invalid ${"${NAME}"} in service name. Expected format is ${"${NAME}${SERVICETYPE}"}, where {NAME} must be atleast 1 character long and can only consist of alphabets, digits, ":", "-", "_", ".", and "\"`,
    );
  });
});

describe("validateNodeDisruptionPolicy accepts", () => {
  it.each([
    ["the shipped defaults (Special allowed with the default label)", SPEC_DEFAULTS_OBJECT],
    ["an empty spec", withSpec({})],
    ["a missing spec", { apiVersion: "lockstep.io/v1alpha1", kind: "NodeDisruptionPolicy", metadata: { name: "p" } }],
    [
      "every action type an admin may use",
      adminPolicy("p", {
        files: [
          { path: "/etc/a", actions: [{ type: "Drain" }, reload("a.service"), restart("b.socket"), { type: "DaemonReload" }] },
          { path: "relative/and//unclean/", actions: [none] },
        ],
        units: [{ name: "x:y_z-1.2.timer", actions: [reboot] }],
        sshkey: { actions: [{ type: "Drain" }] },
      }),
    ],
    ["unit names with a backslash", adminPolicy("p", { units: [{ name: "dev-disk-by\\x2dlabel.mount", actions: [none] }] })],
    ["ten actions", adminPolicy("p", { files: [{ path: "/a", actions: Array.from({ length: 10 }, () => ({ type: "DaemonReload" as const })) }] })],
    ["fifty files", adminPolicy("p", { files: Array.from({ length: 50 }, (_, i) => ({ path: `/f${i}`, actions: [none] })) })],
  ])("%s", (_name, obj) => {
    const r = validateNodeDisruptionPolicy(obj);
    expect(r.problems).toEqual([]);
    expect(r.ok).toBe(true);
    expect(acceptedCondition(r)).toMatchObject({ type: "Accepted", status: "True", reason: "Valid" });
  });

  it("returns the typed policy with labels", () => {
    const r = validateNodeDisruptionPolicy(SPEC_DEFAULTS_OBJECT);
    if (!r.ok) throw new Error("expected ok");
    expect(r.policy.metadata.labels).toEqual({ "lockstep.io/default": "true" });
    expect(r.policy.spec.files?.[3]).toEqual({ path: "/etc/containers/registries.conf", actions: [special] });
  });
});

describe("validateNodeDisruptionPolicy rejects", () => {
  const cases: Array<[string, unknown, PolicyProblem[]]> = [
    ["Reboot with another action", withSpec({ files: [{ path: "/a", actions: [reboot, { type: "Drain" }] }] }), [{ field: "spec.files[0].actions", message: MSG_REBOOT_STANDALONE }]],
    ["None with another action", withSpec({ units: [{ name: "a.service", actions: [{ type: "Drain" }, none] }] }), [{ field: "spec.units[0].actions", message: MSG_NONE_STANDALONE }]],
    [
      "Reboot and None together",
      withSpec({ sshkey: { actions: [reboot, none] } }),
      [
        { field: "spec.sshkey.actions", message: MSG_REBOOT_STANDALONE },
        { field: "spec.sshkey.actions", message: MSG_NONE_STANDALONE },
      ],
    ],
    ["Reload without reload", withSpec({ files: [{ path: "/a", actions: [{ type: "Reload" }] }] }), [{ field: "spec.files[0].actions[0]", message: MSG_RELOAD }]],
    [
      "reload on a Restart action",
      withSpec({ files: [{ path: "/a", actions: [{ type: "Restart", restart: { serviceName: "a.service" }, reload: { serviceName: "a.service" } }] }] }),
      [{ field: "spec.files[0].actions[0]", message: MSG_RELOAD }],
    ],
    ["Restart without restart", withSpec({ files: [{ path: "/a", actions: [{ type: "Restart" }] }] }), [{ field: "spec.files[0].actions[0]", message: MSG_RESTART }]],
    ["restart on a Drain action", withSpec({ files: [{ path: "/a", actions: [{ type: "Drain", restart: { serviceName: "a.service" } }] }] }), [{ field: "spec.files[0].actions[0]", message: MSG_RESTART }]],
    [
      "Special in an admin object",
      withSpec({ files: [{ path: "/a", actions: [special] }] }),
      [{ field: "spec.files[0].actions[0].type", message: 'Unsupported value: "Special": supported values: "Reboot", "Drain", "Reload", "Restart", "DaemonReload", "None"' }],
    ],
    [
      "an unknown action type",
      withSpec({ sshkey: { actions: [{ type: "Kexec" }] } }),
      [{ field: "spec.sshkey.actions[0].type", message: 'Unsupported value: "Kexec": supported values: "Reboot", "Drain", "Reload", "Restart", "DaemonReload", "None"' }],
    ],
    ["a missing action type", withSpec({ sshkey: { actions: [{}] } }), [{ field: "spec.sshkey.actions[0].type", message: "Required value" }]],
    [
      "eleven actions",
      withSpec({ files: [{ path: "/a", actions: Array.from({ length: 11 }, () => ({ type: "DaemonReload" })) }] }),
      [{ field: "spec.files[0].actions", message: "Too many: 11: must have at most 10 items" }],
    ],
    [
      "fifty-one unit rules",
      withSpec({ units: Array.from({ length: 51 }, (_, i) => ({ name: `u${i}.service`, actions: [none] })) }),
      [{ field: "spec.units", message: "Too many: 51: must have at most 50 items" }],
    ],
    [
      "a duplicate path",
      withSpec({ files: [{ path: "/a", actions: [none] }, { path: "/a", actions: [reboot] }] }),
      [{ field: "spec.files[1]", message: 'Duplicate value: map[string]interface {}{"path":"/a"}' }],
    ],
    [
      "a duplicate unit",
      withSpec({ units: [{ name: "a.service", actions: [none] }, { name: "a.service", actions: [none] }] }),
      [{ field: "spec.units[1]", message: 'Duplicate value: map[string]interface {}{"name":"a.service"}' }],
    ],
    ["a unit without a known suffix", withSpec({ units: [{ name: "a.conf", actions: [none] }] }), [{ field: "spec.units[0].name", message: MSG_SERVICE_SUFFIX }]],
    ["a unit with no name part", withSpec({ units: [{ name: ".service", actions: [none] }] }), [{ field: "spec.units[0].name", message: MSG_SERVICE_NAME }]],
    ["a templated unit (upstream rejects @)", withSpec({ units: [{ name: "getty@tty1.service", actions: [none] }] }), [{ field: "spec.units[0].name", message: MSG_SERVICE_NAME }]],
    [
      "a service name that breaks both rules",
      withSpec({ files: [{ path: "/a", actions: [reload("crio")] }] }),
      [
        { field: "spec.files[0].actions[0].reload.serviceName", message: MSG_SERVICE_SUFFIX },
        { field: "spec.files[0].actions[0].reload.serviceName", message: MSG_SERVICE_NAME },
      ],
    ],
    [
      "a service name longer than 255",
      withSpec({ files: [{ path: "/a", actions: [restart(`${"a".repeat(250)}.service`)] }] }),
      [{ field: "spec.files[0].actions[0].restart.serviceName", message: "Too long: may not be longer than 255" }],
    ],
    ["a missing serviceName", withSpec({ files: [{ path: "/a", actions: [{ type: "Reload", reload: {} }] }] }), [{ field: "spec.files[0].actions[0].reload.serviceName", message: "Required value" }]],
    ["a missing path", withSpec({ files: [{ actions: [none] }] }), [{ field: "spec.files[0].path", message: "Required value" }]],
    ["missing actions", withSpec({ files: [{ path: "/a" }] }), [{ field: "spec.files[0].actions", message: "Required value" }]],
    ["an unknown spec field (typo)", withSpec({ file: [] }), [{ field: "spec.file", message: "unknown field" }]],
    ["files not a list", withSpec({ files: { path: "/a" } }), [{ field: "spec.files", message: 'Invalid value: "object": files in body must be of type array' }]],
    ["a wrong apiVersion", withSpec({}, { apiVersion: "operator.openshift.io/v1" }), [{ field: "apiVersion", message: 'Unsupported value: "operator.openshift.io/v1": supported values: "lockstep.io/v1alpha1"' }]],
    ["a wrong kind", withSpec({}, { kind: "MachineConfiguration" }), [{ field: "kind", message: 'Unsupported value: "MachineConfiguration": supported values: "NodeDisruptionPolicy"' }]],
    ["a missing name", withSpec({}, { metadata: {} }), [{ field: "metadata.name", message: "Required value" }]],
    ["not an object", "spec: {}", [{ field: "<root>", message: 'Invalid value: "string": object in body must be of type object' }]],
  ];

  it.each(cases)("%s", (_name, obj, expected) => {
    const r = validateNodeDisruptionPolicy(obj);
    expect(r.ok).toBe(false);
    expect(problems(obj)).toEqual(expected);
    const cond = acceptedCondition(r);
    expect(cond).toMatchObject({ type: "Accepted", status: "False", reason: "InvalidSpec" });
    expect(cond.message).toBe(expected.map(formatProblem).join("; "));
  });

  it("reports every problem of an object at once", () => {
    const obj = withSpec({
      files: [
        { path: "/a", actions: [reboot, { type: "Reload" }] },
        { path: "/a", actions: [] },
      ],
      units: [{ name: "bad", actions: [none] }],
    });
    expect(problems(obj).map(formatProblem)).toEqual([
      `spec.files[0].actions[1]: ${MSG_RELOAD}`,
      `spec.files[0].actions: ${MSG_REBOOT_STANDALONE}`,
      'spec.files[1]: Duplicate value: map[string]interface {}{"path":"/a"}',
      `spec.units[0].name: ${MSG_SERVICE_SUFFIX}`,
      `spec.units[0].name: ${MSG_SERVICE_NAME}`,
    ]);
  });
});

describe("serviceNameProblems", () => {
  it.each(["crio.service", "a.socket", "b.device", "c.mount", "d.automount", "e.swap", "f.target", "g.path", "h.timer", "i.snapshot", "j.slice", "k.scope"])(
    "accepts %s",
    (n) => expect(serviceNameProblems(n)).toEqual([]),
  );
  it.each([["", ["Required value"]], ["crio", [MSG_SERVICE_SUFFIX, MSG_SERVICE_NAME]], ["a b.service", [MSG_SERVICE_NAME]], ["a.service.bak", [MSG_SERVICE_SUFFIX]]])(
    "rejects %j",
    (n, expected) => expect(serviceNameProblems(n)).toEqual(expected),
  );
});
