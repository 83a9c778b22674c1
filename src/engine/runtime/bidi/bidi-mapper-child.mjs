/**
 * The chromium-bidi mapper for one WebDriver BiDi client, in its own process inside a helper
 * jail (started by bidi-jail.ts): the client's BiDi commands are parsed by a large library, so
 * they are handled where the engine's secrets and memory are not. It speaks CDP to the
 * session's browser through the session's CDP socket and BiDi with the engine over stdio, one
 * JSON message per line. It exits when the browser connection closes.
 *
 *   node bidi-mapper-child.mjs <node_modules dir> <cdp socket> <browser ws path>
 *
 * Plain JavaScript with builtins only (the libraries come from the mounted node_modules).
 */
import readline from 'node:readline';

const [modules, cdpSocket, browserPath] = process.argv.slice(2);
const gen = `${modules}/chromium-bidi/out/Default/gen/src`;
const { BidiServer } = await import(`${gen}/bidiMapper/BidiMapper.js`);
const { MapperCdpConnection } = await import(`${gen}/cdp/CdpConnection.js`);
const { BidiParser } = await import(`${gen}/bidiTab/BidiParser.js`);
const { WebSocket } = await import(`${modules}/ws/wrapper.mjs`);

const send = (message) => process.stdout.write(`${JSON.stringify(message)}\n`);

const cdpWs = new WebSocket(`ws+unix://${cdpSocket}:${browserPath}`, { perMessageDeflate: false, maxPayload: 256 * 1024 * 1024 });
await new Promise((resolve, reject) => {
  cdpWs.once('open', resolve);
  cdpWs.once('error', reject);
});
cdpWs.on('error', () => {});
cdpWs.once('close', () => process.exit(0));

let onCdp;
const cdpTransport = {
  setOnMessage: (handler) => (onCdp = handler),
  sendMessage: (message) => cdpWs.readyState === WebSocket.OPEN && cdpWs.send(message),
  close: () => cdpWs.close(),
};
cdpWs.on('message', (data) => void onCdp?.(data.toString()));

let onCommand;
const early = [];
const bidiTransport = {
  setOnMessage(handler) {
    onCommand = handler;
    for (const m of early.splice(0)) void handler(m);
  },
  sendMessage: send,
  close: () => (onCommand = undefined),
};

const cdpConnection = new MapperCdpConnection(cdpTransport);
const browserClient = await cdpConnection.createBrowserSession();
await BidiServer.createAndStart(bidiTransport, cdpConnection, browserClient, '', new BidiParser());
process.stderr.write('bidi-mapper: ready\n');

readline.createInterface({ input: process.stdin }).on('line', (line) => {
  let command;
  try {
    command = JSON.parse(line);
  } catch {
    return;
  }
  if (onCommand) void onCommand(command);
  else early.push(command);
});
process.stdin.once('end', () => process.exit(0));
