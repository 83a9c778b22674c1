/**
 * The part of chrome-remote-interface (plain JS, no bundled types) the DevTools discovery test
 * uses: the HTTP discovery calls and a client whose domains are reached by name.
 */
declare module 'chrome-remote-interface' {
  interface Options {
    host?: string;
    port?: number;
    secure?: boolean;
    alterPath?: (path: string) => string;
    target?: string | ((targets: Target[]) => Target | number);
    local?: boolean;
  }
  interface Target {
    id: string;
    type: string;
    url: string;
    title: string;
    webSocketDebuggerUrl?: string;
    devtoolsFrontendUrl?: string;
  }
  type Commands = import('devtools-protocol/types/protocol-mapping.js').ProtocolMapping.Commands;
  /** Commands typed from devtools-protocol; the domain objects only as far as the test reads them. */
  interface Client {
    close(): Promise<void>;
    send<M extends keyof Commands>(method: M, params?: Commands[M]['paramsType'][0]): Promise<Commands[M]['returnType']>;
    Page: { loadEventFired(): Promise<unknown> };
  }
  interface CDP {
    (options?: Options): Promise<Client>;
    Version(options?: Options): Promise<Record<string, string>>;
    Protocol(options?: Options): Promise<{ version: unknown; domains: Array<{ domain: string }> }>;
    List(options?: Options): Promise<Target[]>;
    New(options?: Options & { url?: string }): Promise<Target>;
    Activate(options: Options & { id: string }): Promise<void>;
    Close(options: Options & { id: string }): Promise<void>;
  }
  const CDP: CDP;
  export default CDP;
}
