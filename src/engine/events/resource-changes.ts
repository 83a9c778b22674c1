/**
 * In-process fan-out of resource changes (the change feed's source). Domain services call
 * `resourceChanges(db).emit(...)` after a create, update or delete commits; the feed route
 * listens. Keyed by the engine's database handle, which every domain service already holds,
 * so engines sharing one process (tests) never hear each other and no constructor changes.
 * Listeners must be quick and must not throw; a throwing listener is isolated from the others.
 */
import type { ChangeEvent } from '../../shared/wire/changes.js';

type Listener = (e: ChangeEvent) => void;

export class ResourceChanges {
  private readonly listeners = new Set<Listener>();

  on(fn: Listener): () => void {
    this.listeners.add(fn);
    return () => void this.listeners.delete(fn);
  }

  emit(e: ChangeEvent): void {
    for (const fn of this.listeners) {
      try {
        fn(e);
      } catch {
        /* a listener's failure is its own */
      }
    }
  }

  upsert(resource: ChangeEvent['resource'], id: string, projectId?: string | null): void {
    this.emit({ type: 'upsert', resource, id, ...(projectId ? { project_id: projectId } : {}) });
  }

  delete(resource: ChangeEvent['resource'], id: string, projectId?: string | null): void {
    this.emit({ type: 'delete', resource, id, ...(projectId ? { project_id: projectId } : {}) });
  }

  get listenerCount(): number {
    return this.listeners.size;
  }
}

const byDb = new WeakMap<object, ResourceChanges>();

/** The change bus of the engine that owns `db`. */
export function resourceChanges(db: object): ResourceChanges {
  let bus = byDb.get(db);
  if (!bus) byDb.set(db, (bus = new ResourceChanges()));
  return bus;
}
