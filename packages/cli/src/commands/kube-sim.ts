// `lockstep kube-sim serve`: runs the Kubernetes API emulator until SIGINT/SIGTERM/SIGHUP; over HTTPS
// with a CA of its own whenever authentication is on.
import { readFile } from "node:fs/promises";
import { type Command, InvalidArgumentError } from "commander";
import { CliError, EXIT } from "../exit-codes.js";
import { generateServingTls, parseFaultSpec, parseTokenAuthFile, startKubeSim, type CrdSet, type StaticUser } from "@lockstep/kube-sim";

const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

function port(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new InvalidArgumentError(`invalid port "${value}" (0-65535; 0 picks a free one)`);
  return n;
}

function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new InvalidArgumentError(`expected a positive integer, got "${value}"`);
  return n;
}

interface ServeOptions {
  port: number;
  host: string;
  kubeconfigOut?: string;
  load: string[];
  token?: string;
  tokenAuthFile?: string;
  user: string[];
  authorizationMode?: string;
  fault: string[];
  crds: string[];
  history?: number;
  seed?: number;
  dumpOnExit?: string;
  webhookService: string[];
}

/** `--webhook-service lockstep/coordinator[:443]=https://127.0.0.1:9443` → map entry. */
export function parseWebhookService(spec: string): [string, string] {
  const i = spec.indexOf("=");
  const key = i < 0 ? "" : spec.slice(0, i);
  const url = i < 0 ? "" : spec.slice(i + 1);
  if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?\/[a-z0-9]([-a-z0-9]*[a-z0-9])?(:\d{1,5})?$/.test(key) || !/^https:\/\/[^/?#]+\/?$/.test(url))
    throw new CliError(EXIT.USAGE, `invalid --webhook-service "${spec}" (want NAMESPACE/NAME[:PORT]=https://HOST:PORT)`);
  return [key, url];
}

export function register(program: Command): void {
  const cmd = program.command("kube-sim").description("Kubernetes API emulator for tests, demos and benchmarks");
  cmd
    .command("serve")
    .description("serve the emulated API on loopback; prints the URL, writes a kubeconfig")
    .option("--port <n>", "port (0 picks a free one)", port, 0)
    .option("--host <addr>", "address to listen on", "127.0.0.1")
    .option("--kubeconfig-out <file>", "write a kubeconfig for kubectl and client-node")
    .option("--load <file>", "YAML/JSON objects or Lists to seed (repeatable)", collect, [])
    .option("--token <token>", "require this bearer token (401 otherwise); it acts as kube-sim-admin in system:masters. Any authentication serves HTTPS with a generated CA (in --kubeconfig-out)")
    .option("--token-auth-file <file>", 'static users, kube-apiserver format: CSV lines token,user,uid[,"group1,group2"]')
    .option("--user <csv>", 'one static user as a token-auth-file line, e.g. \'tok,alice,,"ops,dev"\' (repeatable)', collect, [])
    .option("--authorization-mode <mode>", "AlwaysAllow (default) or RBAC: authorize every request against the stored RBAC objects (403 otherwise)")
    .option("--fault <spec>", "fault injection, e.g. error=500:0.05:verb=update:resource=nodes, latency=20ms, drop-watches=10s, gone-next-watch, outage=5s (repeatable)", collect, [])
    .option("--crds <set>", "CRD set to install: openshift (includes lockstep.io) or lockstep (repeatable)", collect, [])
    .option("--history <events>", "watch history kept per resource (older RVs get 410)", positiveInt)
    .option("--seed <n>", "seed for uids, generated names and faults", positiveInt)
    .option("--dump-on-exit <file>", "dump the whole store to this file on shutdown")
    .option(
      "--webhook-service <ns/name[:port]=url>",
      "where an admission webhook's clientConfig.service listens (no cluster DNS), e.g. lockstep/lockstep-lease-coordinator=https://127.0.0.1:9443 (repeatable)",
      collect,
      [],
    )
    .action(async (opts: ServeOptions) => {
      // Validate every spec before starting, so a typo fails fast with the offending spec named.
      for (const f of opts.fault) {
        try {
          parseFaultSpec(f);
        } catch (err) {
          throw new CliError(EXIT.USAGE, `--fault ${f}: ${(err as Error).message}`);
        }
      }
      for (const c of opts.crds) if (c !== "openshift" && c !== "lockstep") throw new CliError(EXIT.USAGE, `unknown CRD set "${c}" (openshift, lockstep)`);
      const mode = opts.authorizationMode ?? "AlwaysAllow";
      if (mode !== "AlwaysAllow" && mode !== "RBAC") throw new CliError(EXIT.USAGE, `unknown authorization mode "${mode}" (AlwaysAllow, RBAC)`);
      const users: StaticUser[] = [];
      if (opts.tokenAuthFile) users.push(...parseTokenAuthFile(await readFile(opts.tokenAuthFile, "utf8"), opts.tokenAuthFile));
      opts.user.forEach((line, i) => users.push(...parseTokenAuthFile(line, `--user #${i + 1}`)));
      const webhookServices = Object.fromEntries(opts.webhookService.map(parseWebhookService));
      // With authentication on, serve HTTPS as an API server does: kubectl and client-go send a
      // bearer token only over TLS. The CA goes into --kubeconfig-out.
      const authenticated = opts.token !== undefined || users.length > 0;
      const tls = authenticated ? generateServingTls(opts.host) : undefined;
      const faults = opts.fault.length ? [...(opts.seed !== undefined ? [`seed=${opts.seed}`] : []), ...opts.fault] : undefined;
      const sim = await startKubeSim({
        port: opts.port,
        host: opts.host,
        token: opts.token,
        users,
        authorization: mode,
        load: opts.load,
        faults,
        crds: opts.crds as CrdSet[],
        historyLimit: opts.history,
        seed: opts.seed,
        webhookServices,
        tls,
      });
      if (opts.kubeconfigOut) await sim.writeKubeconfig(opts.kubeconfigOut);
      process.stdout.write(`${sim.url}\n`);
      if (opts.kubeconfigOut) process.stderr.write(`kube-sim: kubeconfig written to ${opts.kubeconfigOut}\n`);
      await new Promise<void>((resolve) => {
        const shutdown = () => resolve();
        process.once("SIGINT", shutdown);
        process.once("SIGTERM", shutdown);
        process.once("SIGHUP", shutdown);
      });
      if (opts.dumpOnExit) await sim.dump(opts.dumpOnExit);
      await sim.stop();
    });
}
