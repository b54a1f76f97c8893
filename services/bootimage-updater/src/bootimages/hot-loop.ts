// Hot-loop guard (mco-behaviors.md §3.13): never the same write a fourth time.

export const HOT_LOOP_LIMIT = 3;

export interface HotLoopEntry {
  readonly value: string;
  readonly count: number;
}

/** Per-MachineSet memory; the edge persists it so restarts do not reset it (Lockstep divergence). */
export type HotLoopState = Readonly<Record<string, HotLoopEntry>>;

export function hotLoopMessage(name: string): string {
  return `refusing to reconcile machineset ${name}, hot loop detected. Please opt-out of boot image updates, adjust your machine provisioning workflow to prevent hot loops and opt back in to resume boot image updates`;
}

/** The error to report instead of patching, or undefined when the patch may go ahead. */
export function checkHotLoop(state: HotLoopState, name: string, value: string): string | undefined {
  const e = Object.hasOwn(state, name) ? state[name] : undefined;
  return e && e.value === value && e.count >= HOT_LOOP_LIMIT ? hotLoopMessage(name) : undefined;
}

/** The memory after a successful patch. */
export function recordPatch(state: HotLoopState, name: string, value: string): HotLoopState {
  const e = Object.hasOwn(state, name) ? state[name] : undefined;
  return { ...state, [name]: { value, count: e && e.value === value ? e.count + 1 : 1 } };
}
