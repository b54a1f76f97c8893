// The lease webhook Service's endpoints, as Kubernetes keeps them: the lease-coordinator replicas
// whose readiness probe passes. kube-sim asks for one per admission call. A replica that died or
// turned stale (not ready) keeps receiving calls for a while, as with a real Service: the kubelet
// notices, the endpoints controller and kube-proxy follow, and until then the API server's calls
// still reach the dead pod (connection refused or reset, which the webhook's failurePolicy decides).
import type { ManagedProcess } from "@lockstep/launcher";

/** How often each replica's /readyz is probed (a kubelet probes every 10 s by default; the demo is faster). */
const PROBE_MS = 250;
/** How long a replica that failed its probe stays routed to (a real Service's lag, a second or two). */
export const ENDPOINT_LAG_MS = 1_500;

export class WebhookEndpoints {
  private replicas: Array<{ process: ManagedProcess; http: number }> = [];
  private ready = new Set<number>();
  /** When each replica first failed its probe (since its last pass). */
  private failingSince = new Map<number, number>();
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
        const now = Date.now();
        if (ok) {
          this.ready.add(i);
          this.failingSince.delete(i);
        } else {
          const since = this.failingSince.get(i) ?? now;
          this.failingSince.set(i, since);
          if (now - since >= ENDPOINT_LAG_MS) this.ready.delete(i);
        }
      }),
    );
  }
}
