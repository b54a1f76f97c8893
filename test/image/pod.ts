// A Deployment's container as the kubelet would start it, from a rendered pod template and the image's
// config: command/args (with $(VAR) expansion), environment (image's, then the container's; Secrets and
// fields resolved by the caller's stubs), user, working directory, mounts and a read-only root. Pure: it
// describes the run; image.test.ts carries it out with unshare and chroot.

export interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: {
    secretKeyRef?: { name: string; key: string; optional?: boolean };
    configMapKeyRef?: { name: string; key: string; optional?: boolean };
    fieldRef?: { fieldPath: string };
  };
}

export interface Container {
  name: string;
  command?: string[];
  args?: string[];
  workingDir?: string;
  env?: EnvVar[];
  ports?: Array<{ name?: string; containerPort: number }>;
  readinessProbe?: { httpGet?: { path: string; port: number | string } };
  securityContext?: { runAsUser?: number; runAsGroup?: number; readOnlyRootFilesystem?: boolean };
  volumeMounts?: Array<{ name: string; mountPath: string; readOnly?: boolean }>;
}

export interface PodSpec {
  containers: Container[];
  securityContext?: { runAsUser?: number; runAsGroup?: number; fsGroup?: number };
  volumes?: Array<{ name: string; emptyDir?: object; secret?: { secretName: string; items?: Array<{ key: string; path: string }> }; configMap?: { name: string } }>;
}

/** The parts of an OCI image config that decide how a container starts. */
export interface ImageConfig {
  Env?: string[];
  Entrypoint?: string[];
  Cmd?: string[];
  WorkingDir?: string;
  User?: string;
}

export interface Stubs {
  secret(name: string, key: string): string | undefined;
  configMap(name: string, key: string): string | undefined;
  field(path: string): string | undefined;
}

export type Mount = { path: string; readOnly: boolean } & ({ kind: "tmpfs" } | { kind: "secret"; secret: string; items?: Array<{ key: string; path: string }> } | { kind: "configMap"; configMap: string });

export interface ContainerRun {
  argv: string[];
  env: Record<string, string>;
  cwd: string;
  uid: number;
  gid: number;
  groups: number[];
  readOnlyRoot: boolean;
  mounts: Mount[];
  readiness?: { path: string; port: number };
}

/** Kubernetes' $(VAR) expansion: defined variables are replaced, $$ escapes, anything else stays as written. */
export function expand(text: string, vars: Record<string, string>): string {
  return text.replace(/\$\$|\$\(([A-Za-z_][A-Za-z0-9_.-]*)\)/g, (m, name: string | undefined) => (m === "$$" ? "$" : name !== undefined && name in vars ? vars[name]! : m));
}

export function containerRun(pod: PodSpec, containerName: string, image: ImageConfig, stubs: Stubs): ContainerRun {
  const c = pod.containers.find((x) => x.name === containerName);
  if (!c) throw new Error(`no container ${containerName} in the pod template`);
  const env: Record<string, string> = {};
  for (const kv of image.Env ?? []) {
    const i = kv.indexOf("=");
    env[kv.slice(0, i)] = kv.slice(i + 1);
  }
  const problems: string[] = [];
  for (const e of c.env ?? []) {
    let value: string | undefined;
    if (e.value !== undefined) value = expand(e.value, env);
    else if (e.valueFrom?.secretKeyRef) value = stubs.secret(e.valueFrom.secretKeyRef.name, e.valueFrom.secretKeyRef.key);
    else if (e.valueFrom?.configMapKeyRef) value = stubs.configMap(e.valueFrom.configMapKeyRef.name, e.valueFrom.configMapKeyRef.key);
    else if (e.valueFrom?.fieldRef) value = stubs.field(e.valueFrom.fieldRef.fieldPath);
    else value = "";
    const optional = e.valueFrom?.secretKeyRef?.optional ?? e.valueFrom?.configMapKeyRef?.optional ?? false;
    if (value === undefined && !optional) problems.push(`env ${e.name}: no stub for ${JSON.stringify(e.valueFrom)}`);
    if (value !== undefined) env[e.name] = value;
  }
  if (problems.length) throw new Error(problems.join("; "));
  // Kubernetes: command replaces the image's Entrypoint, args its Cmd; args alone keep the Entrypoint.
  const entrypoint = c.command ?? image.Entrypoint ?? [];
  const cmd = c.args ?? (c.command ? [] : (image.Cmd ?? []));
  const argv = [...entrypoint, ...cmd].map((a) => expand(a, env));
  if (argv.length === 0) throw new Error(`container ${containerName}: nothing to run`);
  const [imageUid, imageGid] = (image.User ?? "0").split(":").map(Number);
  const uid = c.securityContext?.runAsUser ?? pod.securityContext?.runAsUser ?? imageUid ?? 0;
  const gid = c.securityContext?.runAsGroup ?? pod.securityContext?.runAsGroup ?? imageGid ?? 0;
  const mounts: Mount[] = (c.volumeMounts ?? []).map((m) => {
    const v = pod.volumes?.find((x) => x.name === m.name);
    if (!v) throw new Error(`volumeMount ${m.name}: no such volume`);
    const readOnly = m.readOnly ?? false;
    if (v.emptyDir) return { kind: "tmpfs", path: m.mountPath, readOnly };
    if (v.secret) return { kind: "secret", secret: v.secret.secretName, items: v.secret.items, path: m.mountPath, readOnly: true };
    if (v.configMap) return { kind: "configMap", configMap: v.configMap.name, path: m.mountPath, readOnly: true };
    throw new Error(`volume ${m.name}: kind not supported by this test`);
  });
  let readiness: ContainerRun["readiness"];
  const get = c.readinessProbe?.httpGet;
  if (get) {
    const port = typeof get.port === "number" ? get.port : c.ports?.find((p) => p.name === get.port)?.containerPort;
    if (port === undefined) throw new Error(`readinessProbe port ${String(get.port)}: no such container port`);
    readiness = { path: get.path, port };
  }
  return {
    argv,
    env,
    cwd: c.workingDir ?? image.WorkingDir ?? "/",
    uid,
    gid,
    groups: pod.securityContext?.fsGroup !== undefined ? [pod.securityContext.fsGroup] : [],
    readOnlyRoot: c.securityContext?.readOnlyRootFilesystem ?? false,
    mounts,
    readiness,
  };
}
