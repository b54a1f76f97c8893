// The lease webhook Service's endpoints, as Kubernetes keeps them: the lease-coordinator replicas
// whose readiness probe passes. kube-sim asks for one per admission call; a replica that died or
// turned stale (not ready) stops receiving calls within one probe period, as with a real Service.
import type { ManagedProcess } from "@lockstep/launcher";

/** How often each replica's /readyz is probed (a kubelet probes every 10 s by default; the demo is faster). */
const PROBE_MS = 250;

export class WebhookEndpoints {
  private replicas: Array<{ process: ManagedProcess; http: number }> = [];
  private ready = new Set<number>();
  private next = 0;
  private timer: NodeJS.Timeout | undefined;

  /** `ports`: each replica's webhook port, in replica order. */
  constructor(private readonly ports: readonly number[]) {}

  /** Starts probing the replicas (index i serves webhook port i). */
  follow(replicas: Array<{ process: ManagedProcess; http: number }>): void {
    this.replicas = replicas;
    for (let i = 0; i < replicas.length; i++) this.ready.add(i);
    this.timer = setInterval(() => void this.probe(), PROBE_MS);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** A ready replica's webhook URL, round robin; with none ready, the first (the call then fails as it would). */
  pick(): string | undefined {
    if (this.ports.length === 0) return undefined;
    const ready = [...this.ready].filter((i) => i < this.ports.length).sort((a, b) => a - b);
    const i = ready.length > 0 ? ready[this.next++ % ready.length]! : 0;
    return `https://127.0.0.1:${this.ports[i]}`;
  }

  private async probe(): Promise<void> {
    await Promise.all(
      this.replicas.map(async (r, i) => {
        let ok = false;
        if (r.process.running) {
          try {
            ok = (await fetch(`http://127.0.0.1:${r.http}/readyz`, { signal: AbortSignal.timeout(PROBE_MS * 4) })).ok;
          } catch {
            ok = false;
          }
        }
        if (ok) this.ready.add(i);
        else this.ready.delete(i);
      }),
    );
  }
}
