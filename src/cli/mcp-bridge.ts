/**
 * `browserdeck mcp`: a stdio MCP server for clients that only speak stdio, bridging to the
 * engine's Streamable HTTP MCP server at `<url>/mcp` with the API key. It does not interpret
 * the protocol: each JSON-RPC message is forwarded as it is between the MCP SDK's
 * StdioServerTransport (our stdin/stdout) and StreamableHTTPClientTransport (the engine), so
 * every tool, resource and prompt of the engine is served unchanged. Two things it must do
 * itself: tell the HTTP side the protocol version the initialize answer agreed on (the
 * transport sends it as a header on later requests), and answer a request whose POST failed,
 * so the client is not left waiting. Diagnostics go to stderr (stdout is the protocol).
 */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { isJSONRPCRequest, isJSONRPCResultResponse, type JSONRPCMessage, type RequestId } from '@modelcontextprotocol/sdk/types.js';
import type { Connection } from './connection.js';

const oneLine = (s: string) => s.replace(/\s*\n\s*/g, ' ').trim();

/** What a failed POST becomes for the client: one line that names the fix. */
function failureText(err: unknown, url: string): string {
  if (err instanceof StreamableHTTPError && err.code === 401)
    return 'the engine refused the API key (HTTP 401): check KERNEL_API_KEY or run `browserdeck login`';
  if (err instanceof StreamableHTTPError && err.code === 404) return `no MCP server at ${url} (HTTP 404): is this a Browserdeck engine with /mcp?`;
  if (err instanceof TypeError) return `cannot reach ${url}: is the engine running? (set BROWSERDECK_URL or run \`browserdeck login\`)`;
  return oneLine(err instanceof Error ? err.message : String(err));
}

/** Runs until stdin ends; then ends the engine-side MCP session and resolves. */
export async function runMcpBridge(c: Connection): Promise<void> {
  const endpoint = `${c.url}/mcp`;
  const http = new StreamableHTTPClientTransport(new URL(endpoint), { requestInit: { headers: { authorization: `Bearer ${c.apiKey}` } } });
  const stdio = new StdioServerTransport();
  const initializeIds = new Set<RequestId>();
  const log = (line: string) => process.stderr.write(`browserdeck mcp: ${line}\n`);

  stdio.onmessage = (msg: JSONRPCMessage) => {
    const request = isJSONRPCRequest(msg) ? msg : undefined;
    if (request?.method === 'initialize') initializeIds.add(request.id);
    http.send(msg).catch((err: unknown) => {
      const text = failureText(err, endpoint);
      log(text);
      if (request) void stdio.send({ jsonrpc: '2.0', id: request.id, error: { code: -32000, message: text } });
    });
  };
  http.onmessage = (msg: JSONRPCMessage) => {
    if (isJSONRPCResultResponse(msg) && initializeIds.delete(msg.id)) {
      const version = (msg.result as { protocolVersion?: unknown }).protocolVersion;
      if (typeof version === 'string') http.setProtocolVersion(version);
    }
    void stdio.send(msg);
  };
  http.onerror = (err: Error) => log(failureText(err, endpoint));
  stdio.onerror = (err: Error) => log(oneLine(err.message));

  await http.start();
  await stdio.start();
  await new Promise<void>((resolve) => {
    process.stdin.once('end', resolve);
    process.stdin.once('close', resolve);
  });
  await stdio.close();
  // Ends the engine's session for this client rather than leaving it to time out.
  await http.terminateSession().catch(() => {});
  await http.close();
}
