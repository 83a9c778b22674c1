/**
 * In-process fan-out of resource changes (the change feed's source). One per engine
 * (`ctx.changes`, made in engine.ts and handed to each domain service that writes), so
 * engines sharing one process (tests) never hear each other. Domain services call
 * `changes.upsert|delete(...)` after a create, update or delete commits; the feed route listens.
 * Each change carries the organization it belongs to (never sent on the wire): one engine
 * serves several organizations, and a feed follower only hears its own.
 * Listeners must be quick and must not throw; a throwing listener is isolated from the others.
 */
import type { ChangeEvent } from '../../shared/wire/changes.js';

/** A change and the organization whose resource changed. */
export interface OrgChange {
  orgId: string;
  event: ChangeEvent;
}

type Listener = (c: OrgChange) => void;

export class ResourceChanges {
  private readonly listeners = new Set<Listener>();
  private readonly localListeners = new Set<Listener>();

  /** Every change: made on this node or carried from another (cross-node-changes.ts). */
  on(fn: Listener): () => void {
    this.listeners.add(fn);
    return () => void this.listeners.delete(fn);
  }

  /** Changes made on this node only (what the cross-node relay sends on). */
  onLocal(fn: Listener): () => void {
    this.localListeners.add(fn);
    return () => void this.localListeners.delete(fn);
  }

  /** A change made on this node. */
  emit(c: OrgChange): void {
    this.deliver(c);
    callEach(this.localListeners, c);
  }

  /** A change made on another node: heard by this node's followers, not sent on again. */
  deliver(c: OrgChange): void {
    callEach(this.listeners, c);
  }

  upsert(orgId: string, resource: ChangeEvent['resource'], id: string, projectId?: string | null): void {
    this.emit({ orgId, event: { type: 'upsert', resource, id, ...(projectId ? { project_id: projectId } : {}) } });
  }

  delete(orgId: string, resource: ChangeEvent['resource'], id: string, projectId?: string | null): void {
    this.emit({ orgId, event: { type: 'delete', resource, id, ...(projectId ? { project_id: projectId } : {}) } });
  }

  get listenerCount(): number {
    return this.listeners.size;
  }
}

function callEach(listeners: Set<Listener>, c: OrgChange): void {
  for (const fn of listeners) {
    try {
      fn(c);
    } catch {
      /* a listener's failure is its own */
    }
  }
}
