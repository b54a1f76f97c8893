import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { kubectlRunner } from "./kubectl.js";

// A stand-in kubectl: prints its arguments and $CACHE, fails when asked to.
const dir = mkdtempSync(join(tmpdir(), "testing-kubectl-"));
const bin = join(dir, "kubectl");
writeFileSync(bin, '#!/bin/sh\necho "$@ cache=$CACHE"\nif [ "$3" = fail ]; then echo boom >&2; exit 3; fi\n');
chmodSync(bin, 0o755);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("kubectlRunner", () => {
  it("runs on the kubeconfig read at call time, in the given environment", async () => {
    let kubeconfig = "unset";
    const kubectl = kubectlRunner(() => bin, () => kubeconfig, () => ({ ...process.env, CACHE: "c1" }));
    kubeconfig = "/k";
    await expect(kubectl("get", "nodes")).resolves.toEqual({ code: 0, out: "--kubeconfig /k get nodes cache=c1\n", err: "" });
  });

  it("ok() returns stdout, and fails with the exit code and stderr", async () => {
    const kubectl = kubectlRunner(() => bin, () => "/k");
    await expect(kubectl.ok("get")).resolves.toBe("--kubeconfig /k get cache=\n");
    await expect(kubectl.ok("fail")).rejects.toThrow("kubectl fail failed (3): boom");
    await expect(kubectl("fail")).resolves.toMatchObject({ code: 3, err: "boom\n" });
  });
});
