import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ephemeralRangeStart, freePort, portTaken } from "./ports.js";

const dir = mkdtempSync(join(tmpdir(), "lockstep-ports-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("freePort", () => {
  it("hands out distinct ports below the ephemeral range that can be listened on", async () => {
    const start = ephemeralRangeStart();
    const ports: number[] = [];
    for (let i = 0; i < 40; i++) ports.push(await freePort());
    expect(new Set(ports).size).toBe(40);
    for (const p of ports) expect(p).toBeLessThan(start);
    const srv = createServer();
    await new Promise<void>((r) => srv.listen(ports[0], "127.0.0.1", r));
    await new Promise<void>((r) => srv.close(() => r()));
  });

  it("reads the range start from the kernel file and falls back when it is missing or odd", () => {
    const f = join(dir, "range");
    writeFileSync(f, "40000\t60999\n");
    expect(ephemeralRangeStart(f)).toBe(40000);
    writeFileSync(f, "garbage");
    expect(ephemeralRangeStart(f)).toBe(32768);
    expect(ephemeralRangeStart(join(dir, "absent"))).toBe(32768);
  });
});

describe("portTaken", () => {
  it("recognises a service that lost its port, as ManagedProcess reports it, and nothing else", () => {
    const lost = new Error("lease-coordinator-2 exited before it was ready (see x.log); last output:\nError: listen EADDRINUSE: address already in use 0.0.0.0:26825");
    expect(portTaken(lost)).toBe(true);
    expect(portTaken("[ERR] Error listening on port: 127.0.0.1:4222, \"listen tcp 127.0.0.1:4222: bind: address already in use\"")).toBe(true);
    expect(portTaken(new Error("lease-coordinator exited before it was ready (see x.log); last output:\nconfig: GRPC_PORT: expected a port number"))).toBe(false);
  });
});
