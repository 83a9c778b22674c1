/**
 * Every error `code` the engine can answer, collected from its source: each construction of
 * the Error object's class (`new DomainError(status, code, message)` / `new ApiError(…)`, its
 * helpers `DomainError.notFound(…)`, `.conflict(msg, code)`, …, src/shared/errors/domain-error.ts)
 * and each Error object a route sends by hand (`reply.status(n).send({ code, message })`). Read
 * with the TypeScript parser, so a call spread over lines or a code chosen by a `? :` between
 * literals is found like any other; a code or status computed at run time is reported as such.
 */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

export interface ErrorUse {
  code: string;
  /** HTTP statuses, or [] when computed at run time. */
  statuses: number[];
  /** The message, `…` standing for the parts filled in at run time. */
  message?: string;
  file: string;
  line: number;
}

export interface CollectedErrors {
  uses: ErrorUse[];
  /** Constructions whose code is not a literal (file:line), for the page's footnote. */
  computed: string[];
}

/** The helpers' fixed status and code; `codeArg`: the argument that may override the code. */
const HELPERS: Record<string, { status: number; code: string; codeArg?: number }> = {
  badRequest: { status: 400, code: 'invalid_request' },
  invalidField: { status: 400, code: 'invalid_request' },
  unauthorized: { status: 401, code: 'unauthorized' },
  forbidden: { status: 403, code: 'forbidden' },
  notFound: { status: 404, code: 'not_found' },
  conflict: { status: 409, code: 'conflict', codeArg: 1 },
  unprocessable: { status: 422, code: 'unprocessable', codeArg: 1 },
  tooMany: { status: 429, code: '', codeArg: 1 },
};
const ERROR_CLASSES = new Set(['DomainError', 'ApiError']);
/** Where the helpers themselves are defined: their `code` parameter is not a use. */
const DEFINITION = 'src/shared/errors/domain-error.ts';

function sourceFiles(root: string, dirs: string[]): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (/\.ts$/.test(e.name) && !/\.test\.ts$/.test(e.name) && !e.name.endsWith('.d.ts')) out.push(p);
    }
  };
  for (const d of dirs) walk(path.join(root, d));
  return out.sort();
}

/** The literal values an expression can take, or undefined when one of them is computed. */
function literals(expr: ts.Expression | undefined, sf: ts.SourceFile): Array<string | number> | undefined {
  if (!expr) return undefined;
  if (ts.isStringLiteral(expr) || ts.isNoSubstitutionTemplateLiteral(expr)) return [expr.text];
  if (ts.isNumericLiteral(expr)) return [Number(expr.text)];
  if (ts.isParenthesizedExpression(expr) || ts.isAsExpression(expr)) return literals(expr.expression, sf);
  if (ts.isConditionalExpression(expr)) {
    const a = literals(expr.whenTrue, sf);
    const b = literals(expr.whenFalse, sf);
    return a && b ? [...a, ...b] : undefined;
  }
  if (ts.isIdentifier(expr)) {
    // A `const` of the same file with a literal initializer (`const status = x ? 504 : 502`).
    let found: ts.Expression | undefined;
    const visit = (n: ts.Node): void => {
      if (found) return;
      if (ts.isVariableDeclaration(n) && ts.isIdentifier(n.name) && n.name.text === expr.text && n.initializer) found = n.initializer;
      else ts.forEachChild(n, visit);
    };
    visit(sf);
    return found ? literals(found, sf) : undefined;
  }
  return undefined;
}

/** A message argument as text: template parts filled at run time become `…`. */
function messageText(expr: ts.Expression | undefined): string | undefined {
  if (!expr) return undefined;
  if (ts.isStringLiteral(expr) || ts.isNoSubstitutionTemplateLiteral(expr)) return expr.text;
  if (ts.isTemplateExpression(expr)) return expr.head.text + expr.templateSpans.map((s) => `…${s.literal.text}`).join('');
  return undefined;
}

/** `x.status(n)` somewhere in the call chain `expr` is part of. */
function chainStatus(call: ts.CallExpression, sf: ts.SourceFile): number[] | undefined {
  let e: ts.Expression = call.expression;
  while (ts.isPropertyAccessExpression(e) || ts.isCallExpression(e)) {
    if (ts.isCallExpression(e) && ts.isPropertyAccessExpression(e.expression) && (e.expression.name.text === 'status' || e.expression.name.text === 'code'))
      return literals(e.arguments[0], sf)?.filter((v): v is number => typeof v === 'number');
    e = ts.isCallExpression(e) ? e.expression : e.expression;
  }
  return undefined;
}

/** Whether `n` sits in a class extending the Error object's class. */
function extendsErrorClass(n: ts.Node): boolean {
  let c: ts.Node | undefined = n.parent;
  while (c && !ts.isClassDeclaration(c) && !ts.isClassExpression(c)) c = c.parent;
  return !!c?.heritageClauses?.some((h) => h.types.some((t) => ts.isIdentifier(t.expression) && ERROR_CLASSES.has(t.expression.text)));
}

export function collectErrors(root: string): CollectedErrors {
  const uses: ErrorUse[] = [];
  const computed: string[] = [];
  for (const file of sourceFiles(root, ['src/engine', 'src/shared'])) {
    const rel = path.relative(root, file).split(path.sep).join('/');
    const text = fs.readFileSync(file, 'utf8');
    if (!/DomainError|ApiError|\.send\(/.test(text)) continue;
    const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
    const lineOf = (n: ts.Node) => sf.getLineAndCharacterOfPosition(n.getStart(sf)).line + 1;
    const add = (codes: Array<string | number> | undefined, statuses: number[] | undefined, message: ts.Expression | undefined, at: ts.Node) => {
      if (!codes) {
        if (rel !== DEFINITION) computed.push(`${rel}:${lineOf(at)}`);
        return;
      }
      for (const code of codes) uses.push({ code: String(code), statuses: statuses ?? [], message: messageText(message), file: rel, line: lineOf(at) });
    };
    const visit = (n: ts.Node): void => {
      if (ts.isNewExpression(n) && ts.isIdentifier(n.expression) && ERROR_CLASSES.has(n.expression.text)) {
        const args = n.arguments ?? [];
        if (args.length >= 2) {
          const statuses = literals(args[0], sf)?.filter((v): v is number => typeof v === 'number');
          add(literals(args[1], sf), statuses, args[2], n);
        }
      } else if (ts.isCallExpression(n) && n.expression.kind === ts.SyntaxKind.SuperKeyword && extendsErrorClass(n)) {
        // A subclass's `super(status, code, message)`.
        const statuses = literals(n.arguments[0], sf)?.filter((v): v is number => typeof v === 'number');
        add(literals(n.arguments[1], sf), statuses, n.arguments[2], n);
      } else if (ts.isCallExpression(n) && ts.isPropertyAccessExpression(n.expression)) {
        const target = n.expression.expression;
        const name = n.expression.name.text;
        if (ts.isIdentifier(target) && ERROR_CLASSES.has(target.text) && HELPERS[name]) {
          const h = HELPERS[name];
          const override = h.codeArg !== undefined ? n.arguments[h.codeArg] : undefined;
          const codes = override ? literals(override, sf) : h.code ? [h.code] : undefined;
          add(codes, [h.status], name === 'notFound' ? undefined : n.arguments[0], n);
        } else if (name === 'send' && n.arguments[0] && ts.isObjectLiteralExpression(n.arguments[0])) {
          // An Error object written by hand: `{ code: '…', message, … }` sent with its status.
          const props = n.arguments[0].properties.filter(ts.isPropertyAssignment);
          const code = props.find((p) => ts.isIdentifier(p.name) && p.name.text === 'code');
          const message = props.find((p) => ts.isIdentifier(p.name) && p.name.text === 'message');
          if (code && message) add(literals(code.initializer, sf), chainStatus(n, sf), message.initializer, n);
        }
      }
      ts.forEachChild(n, visit);
    };
    visit(sf);
  }
  return { uses, computed };
}
