// `lockstep up`'s NATS choice and replica count, on the built CLI: --nats or --nats-cluster, a cluster size that
// can elect a JetStream leader, --replicas from 1 to 9; each mistake is a usage error (2) said before anything starts.
import { spawnSync } from "node:child_process";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const mainJs = join(resolve(dirname(fileURLToPath(import.meta.url)), "..", ".."), "dist", "main.js");
const run = (args: string[]) => spawnSync(process.execPath, [mainJs, "up", "--kubeconfig", "/nonexistent", ...args], { encoding: "utf8", timeout: 60_000 });

describe("lockstep up --nats-cluster", () => {
  it.each([
    [["--nats-cluster", "2"], "--nats-cluster must be 1 or at least 3 (two servers lose their JetStream majority when either stops), got 2"],
    [["--nats-cluster", "0"], "--nats-cluster must be 1 or at least 3"],
    [["--nats-cluster", "three"], "--nats-cluster must be 1 or at least 3"],
    [["--nats-cluster", "3", "--nats", "nats://127.0.0.1:4222"], "--nats and --nats-cluster exclude each other"],
    [[], "--nats <url> is required (or --nats-cluster <n> to start a local NATS cluster)"],
  ])("%j exits 2 saying why", (args, text) => {
    const r = run(args);
    expect(r.stderr).toContain(text);
    expect(r.status).toBe(2);
  });
});

describe("lockstep up --replicas", () => {
  it.each([["0"], ["10"], ["two"]])("--replicas %s exits 2 saying why", (n) => {
    const r = run(["--nats", "nats://127.0.0.1:4222", "--replicas", n]);
    expect(r.stderr).toContain(`--replicas ${n}: expected a whole number from 1 to 9`);
    expect(r.status).toBe(2);
  });
});
