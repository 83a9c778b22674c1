/**
 * CDP commands and events typed from `devtools-protocol` (the protocol of the Chromium we
 * ship): a misspelt method, a wrong parameter or an unchecked result field is a compile
 * error instead of a CDP error at run time. Methods the mapping does not list go through
 * each client's `sendRaw`, which says why at its call site.
 */
import type { ProtocolMapping } from 'devtools-protocol/types/protocol-mapping.js';

export type CdpMethod = keyof ProtocolMapping.Commands;
/** The parameters of a command (`undefined` for commands that take none). */
export type CdpParams<M extends CdpMethod> = ProtocolMapping.Commands[M]['paramsType'][0];
export type CdpResult<M extends CdpMethod> = ProtocolMapping.Commands[M]['returnType'];

export type CdpEvent = keyof ProtocolMapping.Events;
/** The parameters of an event (an empty object for events that carry none). */
export type CdpEventParams<E extends CdpEvent> = ProtocolMapping.Events[E] extends [infer P] ? P : Record<string, never>;

/** One of the events `E`, with its parameters: a union discriminated by `method`. */
export type CdpEventOf<E extends CdpEvent> = { [K in E]: { method: K; params: CdpEventParams<K> } }[E];

/** One of the commands `M`, with its parameters: a union discriminated by `method`. */
export type CdpCommandOf<M extends CdpMethod> = { [K in M]: { method: K; params: CdpParams<K> } }[M];
