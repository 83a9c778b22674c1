/**
 * The console calls the engine only through its typed client (`transport/api-client.ts`,
 * issue 26): a route key there must be in the route table, so a hand-written path cannot drift
 * from what the engine serves. This finds, in src/renderer/src outside `transport/`, every
 * call of `request`/`send`/`stream`/`binary`/`download`
 * - on `transport()` (the client is the one caller of the transport), or
 * - given a path in its first two arguments: a string or template literal, or an object
 *   literal with a `path` property
 *   (the client's own `api.call('GET /x')` takes a route key, not a path, and is allowed).
 */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
const RENDERER = 'src/renderer/src';
/** The client and the transports it sits on. */
const ALLOWED_DIR = `${RENDERER}/transport/`;
const METHODS = new Set(['request', 'send', 'stream', 'binary', 'download']);

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(p);
    return /\.tsx?$/.test(e.name) && !/\.test\.tsx?$/.test(e.name) ? [p] : [];
  });
}

function isPathArg(arg: ts.Expression | undefined): boolean {
  if (!arg) return false;
  if (ts.isStringLiteral(arg) || ts.isNoSubstitutionTemplateLiteral(arg) || ts.isTemplateExpression(arg)) return true;
  if (ts.isBinaryExpression(arg) && arg.operatorToken.kind === ts.SyntaxKind.PlusToken) return isPathArg(arg.left) || isPathArg(arg.right);
  return ts.isObjectLiteralExpression(arg) && arg.properties.some((p) => p.name && ts.isIdentifier(p.name) && p.name.text === 'path');
}

const isTransportCall = (e: ts.Expression): boolean => ts.isCallExpression(e) && ts.isIdentifier(e.expression) && e.expression.text === 'transport';

/** `file:line: text` of every transport call with a raw path, or on `transport()`, outside the client. */
export function rawTransportCalls(files: Array<{ path: string; text: string }>): string[] {
  const out: string[] = [];
  for (const f of files) {
    if (f.path.startsWith(ALLOWED_DIR)) continue;
    const sf = ts.createSourceFile(f.path, f.text, ts.ScriptTarget.Latest, true, f.path.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
    const visit = (n: ts.Node): void => {
      if (ts.isCallExpression(n) && ts.isPropertyAccessExpression(n.expression) && METHODS.has(n.expression.name.text)) {
        const receiver = n.expression.expression;
        const viaClient = ts.isIdentifier(receiver) && receiver.text === 'api';
        if (isTransportCall(receiver) || (!viaClient && n.arguments.slice(0, 2).some(isPathArg))) {
          const line = sf.getLineAndCharacterOfPosition(n.getStart(sf)).line;
          out.push(`${f.path}:${line + 1}: ${f.text.split('\n')[line].trim()}`);
        }
      }
      ts.forEachChild(n, visit);
    };
    visit(sf);
  }
  return out;
}

describe('the renderer calls the engine only through the typed client', () => {
  it('finds planted raw calls (the check works)', () => {
    const planted = [
      "const a = await transport().request<Session>('GET', `/browsers/${id}`);",
      "const t = transport();\nawait t.send('GET', '/audit-logs');",
      "for await (const f of t.stream('/changes')) {}",
      "await t.download({ path: '/extensions/' + id, filename: 'x.zip' });",
      'await transport().binary(call);',
      "await someClient.request('POST', '/browsers/' + id);",
    ].join('\n');
    expect(rawTransportCalls([{ path: `${RENDERER}/stores/x.ts`, text: planted }]).map((l) => l.split(': ')[0])).toEqual([
      `${RENDERER}/stores/x.ts:1`,
      `${RENDERER}/stores/x.ts:3`,
      `${RENDERER}/stores/x.ts:4`,
      `${RENDERER}/stores/x.ts:5`,
      `${RENDERER}/stores/x.ts:6`,
      `${RENDERER}/stores/x.ts:7`,
    ]);
    const fine = [
      "const s = await api.call('GET /browsers/:id', { params: { id } });",
      "api.stream('GET /changes');",
      'ws.send(JSON.stringify({ type: "resize" }));',
      "if (transport().kind === 'desktop') return;",
    ].join('\n');
    expect(rawTransportCalls([{ path: `${RENDERER}/stores/y.tsx`, text: fine }])).toEqual([]);
    expect(rawTransportCalls([{ path: `${RENDERER}/transport/api-client.ts`, text: planted }])).toEqual([]);
  });

  it('has none', () => {
    const files = sourceFiles(path.join(root, RENDERER)).map((p) => ({
      path: path.relative(root, p).split(path.sep).join('/'),
      text: fs.readFileSync(p, 'utf8'),
    }));
    expect(files.length).toBeGreaterThan(50);
    expect(rawTransportCalls(files)).toEqual([]);
  });
});
