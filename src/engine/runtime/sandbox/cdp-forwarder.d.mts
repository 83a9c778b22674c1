/** Types of cdp-forwarder.mjs (plain JavaScript so it runs under bare `node` inside sandboxes). */
import type net from 'node:net';

export function splice(a: net.Socket, b: net.Socket): void;
export function listenForwarder(socketPath: string, port: number, host?: string): Promise<net.Server>;
