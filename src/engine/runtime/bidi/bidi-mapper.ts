/**
 * Runs the `chromium-bidi` mapper in-process for one WebDriver BiDi client, the way Puppeteer
 * does for BiDi-over-CDP: the mapper speaks CDP to the session's browser over its own
 * WebSocket and BiDi to the client. One mapper per client connection, so clients never share
 * BiDi session state. The mapper answers `session.new` / `session.status` itself.
 */
import { WebSocket } from 'ws';
import type { BidiServer } from 'chromium-bidi/out/Default/gen/src/bidiMapper/BidiMapper.js';

// Client messages are unparsed JSON here: the mapper validates them (BidiParser).
type Handler = (message: unknown) => Promise<void> | void;

/** A chromium-bidi Transport over a `ws` socket to the browser's CDP endpoint. */
class CdpSocketTransport {
  private handler?: (m: string) => Promise<void> | void;
  constructor(private readonly ws: WebSocket) {
    ws.on('message', (data) => void this.handler?.(data.toString()));
  }
  setOnMessage(handler: (m: string) => Promise<void> | void): void {
    this.handler = handler;
  }
  sendMessage(message: string): void {
    if (this.ws.readyState === WebSocket.OPEN) this.ws.send(message);
  }
  close(): void {
    this.ws.close();
  }
}

export interface BidiMapper {
  /** Hands one parsed BiDi command from the client to the mapper. */
  dispatch(command: unknown): void;
  close(): void;
  /** Resolves when the mapper's CDP connection to the browser is gone (browser restarted or closed). */
  readonly cdpClosed: Promise<void>;
}

export async function startBidiMapper(browserCdpUrl: string, toClient: (message: unknown) => void): Promise<BidiMapper> {
  // chromium-bidi is loaded by the first BiDi client, not by every engine start.
  const [{ BidiServer }, { MapperCdpConnection }, { BidiParser }] = await Promise.all([
    import('chromium-bidi/out/Default/gen/src/bidiMapper/BidiMapper.js'),
    import('chromium-bidi/out/Default/gen/src/cdp/CdpConnection.js'),
    import('chromium-bidi/out/Default/gen/src/bidiTab/BidiParser.js'),
  ]);
  const cdpWs = new WebSocket(browserCdpUrl, { perMessageDeflate: false, maxPayload: 256 * 1024 * 1024 });
  await new Promise<void>((resolve, reject) => {
    cdpWs.once('open', resolve);
    cdpWs.once('error', reject);
  });
  const cdpClosed = new Promise<void>((resolve) => cdpWs.once('close', () => resolve()));
  cdpWs.on('error', () => {});
  const cdpConnection = new MapperCdpConnection(new CdpSocketTransport(cdpWs));
  let onCommand: Handler | undefined;
  const early: unknown[] = [];
  const bidiTransport = {
    setOnMessage(handler: Handler) {
      onCommand = handler;
      for (const m of early.splice(0)) void handler(m);
    },
    sendMessage(message: unknown) {
      toClient(message);
    },
    close() {
      onCommand = undefined;
    },
  };
  let server: BidiServer | undefined;
  try {
    const browserClient = await cdpConnection.createBrowserSession();
    server = await BidiServer.createAndStart(bidiTransport as never, cdpConnection, browserClient, '', new BidiParser());
  } catch (err) {
    cdpConnection.close();
    cdpWs.terminate();
    throw err;
  }
  return {
    dispatch(command) {
      if (onCommand) void onCommand(command);
      else early.push(command);
    },
    close() {
      server?.close();
      cdpConnection.close();
      if (cdpWs.readyState === WebSocket.OPEN || cdpWs.readyState === WebSocket.CONNECTING) cdpWs.close();
    },
    cdpClosed,
  };
}
