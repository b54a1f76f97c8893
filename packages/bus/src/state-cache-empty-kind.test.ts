// A kind that holds nothing is known to be loaded only by asking the server (watch-start.ts). When
// that question fails — here a NATS user not yet allowed the listing consumer's info, as the chart's
// permissions once were — the cache asks again until it is answered, rather than never being ready.
import { writeFileSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { Writable } from "node:stream";
import type { NatsConnection } from "@nats-io/transport-node";
import { encode, NodeState, stateKey } from "@lockstep/contracts";
import { startNatsServer, waitFor, type NatsServer } from "@lockstep/testing";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeBus, connectBus } from "./connection.js";
import { ensureStateBucket } from "./setup.js";
import { StateCache } from "./state-cache.js";

const INFO = `"$JS.API.CONSUMER.INFO.KV_lockstep-state-v1.>"`;
const authorization = (withInfo: boolean) => `authorization {
  users = [
    { user: "admin", password: "admin" }
    { user: "reader", password: "reader", permissions: {
        publish: { allow: ["$JS.API.INFO", "$JS.API.STREAM.INFO.KV_lockstep-state-v1", "$JS.API.STREAM.CREATE.KV_lockstep-state-v1",
          "$JS.API.CONSUMER.CREATE.KV_lockstep-state-v1.>", "$JS.API.CONSUMER.DELETE.KV_lockstep-state-v1.>", "$JS.FC.KV_lockstep-state-v1.>"${withInfo ? `, ${INFO}` : ""}] }
        subscribe: { allow: ["_INBOX.>"] } } }
  ]
}`;

let srv: NatsServer;
let admin: NatsConnection;
let reader: NatsConnection;

beforeAll(async () => {
  srv = await startNatsServer({ config: authorization(false) });
  admin = await connectBus({ servers: srv.url, name: "admin", user: "admin", password: "admin" });
  await (await ensureStateBucket(admin)).put(stateKey("node", "n1"), encode(NodeState, NodeState.fromPartial({ name: "n1" })));
  reader = await connectBus({ servers: srv.url, name: "reader", user: "reader", password: "reader" });
});

afterAll(async () => {
  await closeBus(reader);
  await closeBus(admin);
  await srv.stop();
});

describe("state cache, a kind that holds nothing", () => {
  it("asks again whether it is empty until the server answers, then is ready", async () => {
    const lines: Array<{ msg: string; filter?: string; attempt?: number }> = [];
    const sink = new Writable({ write: (chunk, _enc, done) => (lines.push(JSON.parse(String(chunk))), done()) });
    const cache = new StateCache(await ensureStateBucket(reader), { kinds: ["node", "machineSet"], logger: pino({ level: "warn" }, sink) });
    let ready = false;
    const started = cache.start().then(() => (ready = true));
    try {
      const refused = () => lines.filter((l) => l.msg.startsWith("cannot tell whether a state filter is empty"));
      await waitFor(() => refused().length >= 2, { timeoutMs: 15_000, what: "two refused attempts" });
      expect(ready).toBe(false);

      // The permission arrives (nats-server reloads its configuration on SIGHUP).
      const conf = join(dirname(srv.storeDir), "nats.conf");
      writeFileSync(conf, readFileSync(conf, "utf8").replace(authorization(false), authorization(true)));
      process.kill(srv.pid()!, "SIGHUP");
      await started;
      expect(cache.get("node", "n1")).toBeDefined();
      expect(cache.list("machineSet")).toEqual([]);
      // Each filter asked about (the empty ones; under load also one whose values are slow to come)
      // was asked again as a further attempt.
      const attempts = new Map<string | undefined, typeof lines>();
      for (const l of refused()) attempts.set(l.filter, [...(attempts.get(l.filter) ?? []), l]);
      expect([...attempts.keys()]).toContain("machineset.>");
      for (const [, asked] of attempts) expect(asked.map((l) => l.attempt)).toEqual(asked.map((_, i) => i));
    } finally {
      cache.stop();
    }
  }, 30_000);
});
