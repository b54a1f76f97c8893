import { describe, expect, it } from "vitest";
import { A } from "../constants.js";
import { parseClusterSpec, SpecError, maxUnavailableCount } from "../spec.js";
import { generateCluster } from "./cluster.js";

const kinds = (objs: { kind: string }[]) => objs.reduce<Record<string, number>>((m, o) => ((m[o.kind] = (m[o.kind] ?? 0) + 1), m), {});

describe("generateCluster", () => {
  it("builds a settled cluster: nodes per pool, ~30 operators, rendered configs with release versions", () => {
    const spec = parseClusterSpec({ version: "4.15.3", history: ["4.15.1"], masters: 3, pools: [{ name: "worker", size: 5 }, { name: "infra", size: 2, paused: true }] });
    const g = generateCluster(spec, new Date("2026-01-01T00:00:00Z"));
    const k = kinds(g.objects);
    expect(k.Node).toBe(10);
    expect(k.ClusterOperator).toBeGreaterThanOrEqual(30);
    expect(k.MachineConfigPool).toBe(3);
    const rendered = g.objects.filter((o) => o.kind === "MachineConfig" && o.metadata.name.startsWith("rendered-"));
    expect(rendered.map((m) => m.metadata.annotations![A.releaseImageVersion]).sort()).toEqual(["4.15.1", "4.15.1", "4.15.1", "4.15.3", "4.15.3", "4.15.3"]);
    const files = rendered[0]!.spec.config.storage.files as Array<{ contents: { source: string } }>;
    expect(files.every((f) => f.contents.source.startsWith("data:,"))).toBe(true);
    const cos = g.objects.filter((o) => o.kind === "ClusterOperator");
    expect(cos.every((c) => Object.keys(c.metadata.annotations ?? {}).some((a) => a.startsWith("include.release.openshift.io/")))).toBe(true);
    const cv = g.objects.find((o) => o.kind === "ClusterVersion")!;
    expect(cv.status.history.map((h: { version: string; state: string }) => `${h.version} ${h.state}`)).toEqual(["4.15.3 Completed", "4.15.1 Completed"]);
    const nodes = g.objects.filter((o) => o.kind === "Node");
    expect(nodes.every((n) => n.metadata.annotations![A.currentConfig] === n.metadata.annotations![A.desiredConfig])).toBe(true);
    expect(new Set(nodes.map((n) => n.metadata.name)).size).toBe(10);
    const infraPool = g.objects.find((o) => o.kind === "MachineConfigPool" && o.metadata.name === "infra")!;
    expect(infraPool.status.machineCount).toBe(2);
  });

  it("places the generated past on the simulation's clock: compressed by the time scale, never after now", () => {
    const spec = parseClusterSpec({ version: "4.15.3", history: ["4.15.1", "4.14.9"] });
    const now = new Date("2026-01-01T00:00:00Z");
    const historyOf = (scale: number) => generateCluster(spec, now, scale).objects.find((o) => o.kind === "ClusterVersion")!.status.history as Array<{ startedTime: string; completionTime: string }>;
    const took = (h: { startedTime: string; completionTime: string }) => (Date.parse(h.completionTime) - Date.parse(h.startedTime)) / 1000;
    const real = historyOf(1);
    const scaled = historyOf(60);
    expect(took(real[1]!)).toBe(72 * 60);
    expect(took(scaled[1]!)).toBe(72);
    // Newest first; the oldest update started three weeks before now, or three weeks / 60 at 60x.
    expect(real.map((h) => Date.parse(h.startedTime)).every((t, i, all) => i === 0 || t < all[i - 1]!)).toBe(true);
    expect(now.getTime() - Date.parse(real[2]!.startedTime)).toBe(21 * 86_400_000);
    expect(now.getTime() - Date.parse(scaled[2]!.startedTime)).toBe((21 * 86_400_000) / 60);
    const all = JSON.stringify(generateCluster(spec, now, 600).objects).match(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ/g)!;
    expect(all.length).toBeGreaterThan(10);
    expect(all.filter((t) => Date.parse(t) > now.getTime())).toEqual([]);
    expect(() => generateCluster(spec, now, 0)).toThrow("time scale must be a positive number");
  });

  it("boots MachineSets from the platform's image of the boot image release", () => {
    const ref = (platform: string) => {
      const g = generateCluster(parseClusterSpec({ platform, version: "4.15.3", history: ["4.13.4"], pools: [{ name: "worker", size: 3 }] }));
      return g.objects.find((o) => o.kind === "MachineSet")!.spec.template.spec.providerSpec.value;
    };
    expect(ref("aws").ami.id).toMatch(/^ami-0[0-9a-f]{16}$/);
    expect(ref("gcp").disks[0].image).toMatch(/^projects\/rhcos-cloud\/global\/images\/rhcos-413-/);
    expect(ref("azure").image).toMatchObject({ publisher: "azureopenshift", offer: "aro4", type: "MarketplaceNoPlan" });
    expect(ref("vsphere").template).toMatch(/-rhcos-fd-a$/);
  });

  it("ships the coreos-bootimages stream of the current release", () => {
    const g = generateCluster(parseClusterSpec({ version: "4.16.2", region: "us-east-1" }));
    const cm = g.objects.find((o) => o.kind === "ConfigMap" && o.metadata.name === "coreos-bootimages")!;
    expect(cm.data!.releaseVersion).toBe("4.16.2");
    const stream = JSON.parse(cm.data!.stream!);
    expect(stream.architectures.x86_64.images.aws.regions["us-east-1"].image).toMatch(/^ami-/);
    expect(stream.architectures.x86_64.images.gcp.project).toBe("rhcos-cloud");
    expect(stream.architectures.x86_64.artifacts.vmware.formats.ova.disk.location).toMatch(/\.ova$/);
  });
});

describe("cluster spec", () => {
  it("lists every problem", () => {
    try {
      parseClusterSpec({ platform: "openstack", version: "4.x", pools: [{ name: "master", size: -1, maxUnavailable: "ten" }] });
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(SpecError);
      expect((err as SpecError).problems.join("\n")).toMatch(/platform.*\n.*version.*\n.*master pool is implied.*\n.*maxUnavailable.*\n.*size/s);
    }
  });

  it("resolves maxUnavailable like upstream", () => {
    expect(maxUnavailableCount("10%", 25)).toBe(2);
    expect(maxUnavailableCount("1%", 25)).toBe(1);
    expect(maxUnavailableCount(3, 25)).toBe(3);
    expect(maxUnavailableCount(0, 25)).toBe(1);
  });
});
