/**
 * Change events: after a mutation a screen calls `changed('sessions')`, and the engine's change
 * feed does the same for changes made by any client (`live-feed.ts`); every store listening
 * to that topic refetches once, debounced, instead of patching its state by hand.
 */
export type Topic =
  | 'sessions'
  | 'pools'
  | 'profiles'
  | 'deployments'
  | 'credentials'
  | 'projects'
  | 'api-keys'
  | 'org-limits'
  | 'audit-logs'
  | 'connections'
  | 'proxies'
  | 'auth-connections'
  | 'invocations'
  | 'extensions'
  | 'audit-destinations'
  | 'credential-providers'
  | 'telemetry-destinations';

const listeners = new Map<Topic, Set<() => void>>();
const timers = new Map<Topic, ReturnType<typeof setTimeout>>();
const DEBOUNCE_MS = 120;

export function onChange(topic: Topic, fn: () => void): () => void {
  let set = listeners.get(topic);
  if (!set) listeners.set(topic, (set = new Set()));
  set.add(fn);
  return () => set!.delete(fn);
}

export function changed(...topics: Topic[]): void {
  for (const topic of topics) {
    clearTimeout(timers.get(topic));
    timers.set(
      topic,
      setTimeout(() => {
        timers.delete(topic);
        for (const fn of listeners.get(topic) ?? []) fn();
      }, DEBOUNCE_MS),
    );
  }
}
