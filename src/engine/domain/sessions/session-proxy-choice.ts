/**
 * The typed `proxy` of Kernel 0.88 (`{mode: "direct"|"default"}`, `{id}` or `{name}`, exactly one)
 * next to the deprecated `proxy_id`, which still works but not together with it. This engine has
 * no stealth proxy of its own, so `default` is direct as `direct` is; the mode is kept only to be
 * reported back as asked.
 */
import { DomainError } from '../../../shared/errors/domain-error.js';

export interface ProxySelector {
  mode?: 'direct' | 'default';
  id?: string;
  name?: string;
}

/** A proxy to resolve: an id (`proxy_id`, `proxy.id`) or `{name}`. */
export type ProxyRef = string | { name: string };

export interface ProxyChoice {
  /** No proxy, by this mode. */
  mode?: 'direct' | 'default';
  selector?: ProxyRef;
}

/** Checks `proxy` against `proxy_id` (and, on PATCH, `disable_default_proxy`). */
export function proxyChoice(proxy: ProxySelector | undefined, proxyId: string | null | undefined, disableDefault?: boolean): ProxyChoice {
  if (proxy === undefined) return proxyId ? { selector: proxyId } : {};
  if (proxyId !== undefined) throw DomainError.invalidField('proxy', 'cannot be combined with proxy_id (deprecated); give only proxy');
  if (disableDefault !== undefined) throw DomainError.invalidField('proxy', 'cannot be combined with disable_default_proxy (deprecated); use proxy.mode');
  const given = (['mode', 'id', 'name'] as const).filter((k) => proxy[k] !== undefined);
  if (given.length !== 1) throw DomainError.invalidField('proxy', 'give exactly one of mode, id and name');
  if (proxy.mode) return { mode: proxy.mode };
  return { selector: proxy.id ?? { name: proxy.name! } };
}
