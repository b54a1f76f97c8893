// Starts and stops the kube-apiserver oracle: etcd and kube-apiserver on free loopback ports, in a temp dir with
// a static token file (admin in system:masters), a ServiceAccount key and a kubeconfig. Stopping kills both and
// removes the dir; so does any exit of the process that started them (unless detached by the CLI).
//
// CLI:
//   node scripts/oracle/oracle.mjs build                 build (cached) and print the binary's path
//   node scripts/oracle/oracle.mjs start [--detach]      start; prints the server as JSON; foreground until a signal
//   (start and run take --user 'TOKEN,NAME,UID,"G1,G2"'... : more static users, kube-apiserver's token file format)
//   node scripts/oracle/oracle.mjs stop DIR              stop a detached oracle (DIR from start's output)
//   node scripts/oracle/oracle.mjs run -- CMD [ARGS...]  build, start, run CMD with KUBE_CONFORMANCE_* set, stop;
//                                                        exits with CMD's status
//   node scripts/oracle/oracle.mjs conformance [FILES]   run kube-sim's conformance suite against the oracle
//   node scripts/oracle/oracle.mjs tier                  the conformance suite, then the whole-system tests
//                                                        (test/oracle/), both whatever the other's result
//                                                        (npm run test:oracle)
import { spawn, spawnSync } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { buildOracle, OracleBuildError } from './build.mjs';

export { buildOracle, OracleBuildError } from './build.mjs';

const REPO = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const READY_TIMEOUT_MS = 60_000;
// The static users kube-sim's auth conformance tests start kube-sim with (packages/kube-sim/test/conformance/
// auth.test.ts); the oracle gets the same ones so those tests run there too.
const CONFORMANCE_USERS = [
  { token: 'lease-operator-token', name: 'lease-operator', uid: 'ops-1', groups: ['lockstep:ops'] },
  { token: 'bob-token', name: 'bob', uid: 'bob' },
];
const STOP_GRACE_MS = 3_000;
// kubeadm's default, and kube-sim's (so TokenRequest's default audience is the same on both).
const SERVICE_ACCOUNT_ISSUER = 'https://kubernetes.default.svc.cluster.local';
const SERVICE_CIDR = '10.96.0.0/16';

/** A free loopback TCP port (closed again at once; the small race is acceptable on a test machine). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

function csvField(value) {
  return /[",]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

/** kube-apiserver's --token-auth-file format: token,user,uid[,"group1,group2"]. */
export function tokenFileText(users) {
  return users.map((u) => [u.token, u.name, u.uid ?? u.name, ...(u.groups?.length ? [csvField(u.groups.join(','))] : [])].join(',')).join('\n') + '\n';
}

function kubeconfigText({ url, caPem, token }) {
  const ca = Buffer.from(caPem).toString('base64');
  return `apiVersion: v1
kind: Config
clusters:
- name: oracle
  cluster:
    server: ${url}
    certificate-authority-data: ${ca}
users:
- name: admin
  user:
    token: ${token}
contexts:
- name: oracle
  context:
    cluster: oracle
    user: admin
current-context: oracle
`;
}

function probe(url, token, ca) {
  return new Promise((resolve) => {
    const req = request(url, { headers: { authorization: `Bearer ${token}` }, ca, timeout: 2_000 }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', () => resolve({ status: 0, body: '' }));
    req.end();
  });
}

function exited(child) {
  return child.exitCode !== null || child.signalCode !== null;
}

function waitExit(child, ms) {
  if (exited(child)) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

function tail(file, lines = 20) {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}

const live = new Set();
let exitHookInstalled = false;
function installExitHook() {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // Last resort on every exit path (a thrown error, process.exit, the end of a test run): nothing outlives us.
  process.on('exit', () => {
    for (const oracle of live) oracle.killNow();
  });
}

/**
 * Starts etcd and kube-apiserver. Options: `users` (extra static users: {token, name, uid?, groups?}),
 * `apiserverArgs` (extra flags), `detached` (children survive this process; stop them with stopDetached(dir)).
 * Returns { url, token, ca, caFile, kubeconfig, dir, version, startSeconds, pids, stop() }.
 */
export async function startOracle(options = {}) {
  const built = options.built ?? buildOracle();
  const started = Date.now();
  const dir = mkdtempSync(join(tmpdir(), 'lockstep-oracle-'));
  const token = randomBytes(24).toString('hex');
  const users = [{ token, name: 'lockstep-oracle-admin', uid: 'lockstep-oracle-admin', groups: ['system:masters'] }, ...(options.users ?? [])];
  writeFileSync(join(dir, 'tokens.csv'), tokenFileText(users), { mode: 0o600 });
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  writeFileSync(join(dir, 'sa.key'), privateKey.export({ type: 'pkcs1', format: 'pem' }), { mode: 0o600 });
  const [etcdPort, peerPort, port] = [await freePort(), await freePort(), await freePort()];
  const etcdUrl = `http://127.0.0.1:${etcdPort}`;
  const peerUrl = `http://127.0.0.1:${peerPort}`;
  const spawnLogged = (name, cmd, args) => {
    const out = openSync(join(dir, `${name}.log`), 'a');
    return spawn(cmd, args, { stdio: ['ignore', out, out], detached: Boolean(options.detached) });
  };
  const children = [];
  const killNow = () => {
    for (const child of children) if (!exited(child)) child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  };
  const oracle = { killNow };
  if (!options.detached) {
    installExitHook();
    live.add(oracle);
  }
  try {
    children.push(
      spawnLogged('etcd', built.etcd, [
        '--name=oracle',
        `--data-dir=${join(dir, 'etcd')}`,
        `--listen-client-urls=${etcdUrl}`,
        `--advertise-client-urls=${etcdUrl}`,
        `--listen-peer-urls=${peerUrl}`,
        `--initial-advertise-peer-urls=${peerUrl}`,
        `--initial-cluster=oracle=${peerUrl}`,
        '--log-level=warn',
      ]),
    );
    const apiserverArgs = [
      `--etcd-servers=${etcdUrl}`,
      '--insecure-port=0',
      '--bind-address=127.0.0.1',
      '--advertise-address=127.0.0.1',
      `--secure-port=${port}`,
      `--cert-dir=${join(dir, 'certs')}`,
      `--token-auth-file=${join(dir, 'tokens.csv')}`,
      `--service-account-key-file=${join(dir, 'sa.key')}`,
      `--service-account-signing-key-file=${join(dir, 'sa.key')}`,
      `--service-account-issuer=${SERVICE_ACCOUNT_ISSUER}`,
      '--endpoint-reconciler-type=none',
      '--authorization-mode=RBAC',
      `--service-cluster-ip-range=${SERVICE_CIDR}`,
      // There is no controller-manager, so no ServiceAccount controller makes "default" accounts; without this,
      // every pod create would wait for one. kube-sim has no such controller either.
      '--disable-admission-plugins=ServiceAccount',
      // A request without a known token gets 401, as on kube-sim (which has no anonymous user), not 403 as
      // system:anonymous.
      '--anonymous-auth=false',
      ...(options.apiserverArgs ?? []),
    ];
    children.push(spawnLogged('kube-apiserver', built.apiserver, apiserverArgs));
    const url = `https://127.0.0.1:${port}`;
    const caFile = join(dir, 'certs', 'apiserver.crt');
    const deadline = Date.now() + READY_TIMEOUT_MS;
    for (;;) {
      const dead = children.find(exited);
      if (dead) {
        const name = dead === children[0] ? 'etcd' : 'kube-apiserver';
        throw new Error(`${name} exited with ${dead.exitCode ?? dead.signalCode} during start:\n${tail(join(dir, `${name}.log`))}`);
      }
      if (existsSync(caFile)) {
        const ready = await probe(`${url}/readyz`, token, readFileSync(caFile));
        if (ready.status === 200) break;
      }
      if (Date.now() > deadline) throw new Error(`kube-apiserver not ready after ${READY_TIMEOUT_MS / 1000} s:\n${tail(join(dir, 'kube-apiserver.log'))}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const ca = readFileSync(caFile, 'utf8');
    const kubeconfig = join(dir, 'kubeconfig');
    writeFileSync(kubeconfig, kubeconfigText({ url, caPem: ca, token }), { mode: 0o600 });
    const pids = children.map((c) => c.pid);
    writeFileSync(join(dir, 'oracle.json'), JSON.stringify({ url, token, kubeconfig, caFile, pids }, null, 2));
    if (options.detached) for (const child of children) child.unref();
    const stop = async () => {
      // apiserver first (it talks to etcd on the way out), then etcd; SIGKILL whatever ignores SIGTERM.
      for (const child of [...children].reverse()) {
        if (!exited(child)) child.kill('SIGTERM');
        if (!(await waitExit(child, STOP_GRACE_MS))) {
          child.kill('SIGKILL');
          await waitExit(child, STOP_GRACE_MS);
        }
      }
      rmSync(dir, { recursive: true, force: true });
      live.delete(oracle);
    };
    return { url, token, ca, caFile, kubeconfig, dir, version: built.version, startSeconds: (Date.now() - started) / 1000, pids, stop };
  } catch (error) {
    killNow();
    live.delete(oracle);
    throw error;
  }
}

/** Stops an oracle started with `detached` (by the pids it recorded) and removes its dir. */
export async function stopDetached(dir) {
  const file = join(dir, 'oracle.json');
  if (!existsSync(file)) throw new Error(`${file} not found: not an oracle dir, or already stopped`);
  const { pids } = JSON.parse(readFileSync(file, 'utf8'));
  const alive = (pid) => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  for (const pid of [...pids].reverse()) {
    if (alive(pid)) process.kill(pid, 'SIGTERM');
    const until = Date.now() + STOP_GRACE_MS;
    while (alive(pid) && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
    if (alive(pid)) process.kill(pid, 'SIGKILL');
  }
  rmSync(dir, { recursive: true, force: true });
}

/** The environment that points kube-sim's conformance suite at this oracle. */
export function conformanceEnv(oracle) {
  return { KUBE_CONFORMANCE_KUBECONFIG: oracle.kubeconfig };
}

function fail(message) {
  process.stderr.write(`oracle: ${message}\n`);
  process.exit(1);
}

/** Parses one --token-auth-file line: token,user,uid[,"group1,group2"]. */
export function parseUserLine(line) {
  const m = /^([^,]+),([^,]+),([^,]*)(?:,"?([^"]*)"?)?$/.exec(line.trim());
  if (!m) throw new Error(`--user ${line}: expected TOKEN,NAME,UID[,"G1,G2"]`);
  return { token: m[1], name: m[2], uid: m[3] || m[2], groups: m[4] ? m[4].split(',').filter(Boolean) : [] };
}

async function main(argv) {
  const [command, ...args] = argv;
  const users = [];
  const rest = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--') {
      rest.push(...args.slice(i));
      break;
    }
    if (args[i] === '--user') users.push(parseUserLine(args[++i] ?? ''));
    else rest.push(args[i]);
  }
  const build = () => {
    try {
      const t = Date.now();
      const built = buildOracle();
      process.stderr.write(`oracle: kube-apiserver ${built.version} ${built.cached ? 'from the cache' : 'built'} in ${((Date.now() - t) / 1000).toFixed(1)} s\n`);
      return built;
    } catch (error) {
      if (error instanceof OracleBuildError) fail(`cannot build the kube-apiserver oracle: ${error.message}`);
      throw error;
    }
  };
  if (command === 'build') {
    process.stdout.write(`${build().apiserver}\n`);
    return;
  }
  if (command === 'stop') {
    if (!rest[0]) fail('usage: oracle.mjs stop DIR');
    await stopDetached(rest[0]);
    return;
  }
  if (command === 'start') {
    const detached = rest.includes('--detach');
    const oracle = await startOracle({ built: build(), detached, users });
    const { stop, ca, ...shown } = oracle;
    process.stdout.write(`${JSON.stringify(shown, null, 2)}\n`);
    if (detached) process.exit(0);
    process.stderr.write('oracle: running; stop with Ctrl-C\n');
    await new Promise((resolve) => {
      process.once('SIGINT', resolve);
      process.once('SIGTERM', resolve);
    });
    await stop();
    return;
  }
  if (command === 'run') {
    const cmd = rest[0] === '--' ? rest.slice(1) : rest;
    if (cmd.length === 0) fail('usage: oracle.mjs run -- CMD [ARGS...]');
    const oracle = await startOracle({ built: build(), users });
    process.stderr.write(`oracle: kube-apiserver ${oracle.version} ready at ${oracle.url} in ${oracle.startSeconds.toFixed(1)} s\n`);
    const child = spawn(cmd[0], cmd.slice(1), { stdio: 'inherit', env: { ...process.env, ...conformanceEnv(oracle) } });
    const forward = (signal) => child.kill(signal);
    process.on('SIGINT', forward);
    process.on('SIGTERM', forward);
    const code = await new Promise((resolve) => child.on('exit', (c, s) => resolve(c ?? (s ? 1 : 0))));
    await oracle.stop();
    process.exit(code);
  }
  if (command === 'conformance') {
    const started = Date.now();
    const oracle = await startOracle({ built: build(), users: [...CONFORMANCE_USERS, ...users] });
    process.stderr.write(`oracle: kube-apiserver ${oracle.version} ready at ${oracle.url} in ${oracle.startSeconds.toFixed(1)} s\n`);
    const kubeSim = join(REPO, 'packages', 'kube-sim');
    // One file at a time: the files share this one server (kube-sim gets a fresh one per file).
    const vitest = [join(REPO, 'node_modules', '.bin', 'vitest'), 'run', '--no-file-parallelism', ...(rest.length ? rest : ['test/conformance'])];
    const suiteStarted = Date.now();
    const child = spawn(vitest[0], vitest.slice(1), { cwd: kubeSim, stdio: 'inherit', env: { ...process.env, ...conformanceEnv(oracle) } });
    const forward = (signal) => child.kill(signal);
    process.on('SIGINT', forward);
    process.on('SIGTERM', forward);
    const code = await new Promise((resolve) => child.on('exit', (c, s) => resolve(c ?? (s ? 1 : 0))));
    const suiteSeconds = (Date.now() - suiteStarted) / 1000;
    await oracle.stop();
    process.stderr.write(
      `oracle: conformance suite ${code === 0 ? 'passed' : `failed (${code})`} against kube-apiserver ${oracle.version}: start ${oracle.startSeconds.toFixed(1)} s, suite ${suiteSeconds.toFixed(1)} s, total ${((Date.now() - started) / 1000).toFixed(1)} s\n`,
    );
    process.exit(code);
  }
  if (command === 'tier') {
    // Both halves always run (one failing must not hide the other's results); the status is the first failure's.
    const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
    const conformance = spawnSync(process.execPath, [fileURLToPath(import.meta.url), 'conformance'], { cwd: REPO, stdio: 'inherit' });
    const system = spawnSync(npm, ['run', '-s', 'test:oracle:system'], { cwd: REPO, stdio: 'inherit' });
    const codes = [conformance.status ?? 1, system.status ?? 1];
    process.stderr.write(`oracle: conformance ${codes[0] === 0 ? 'passed' : 'failed'}, whole system ${codes[1] === 0 ? 'passed' : 'failed'}\n`);
    process.exit(codes.find((c) => c !== 0) ?? 0);
  }
  fail('usage: oracle.mjs build | start [--detach] | stop DIR | run -- CMD [ARGS...] | conformance [FILES...] | tier');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main(process.argv.slice(2)).catch((error) => fail(error instanceof Error ? error.message : String(error)));
}
