/**
 * docs/reference/api.md's body: every operation of the engine's live `/openapi.json`
 * (engine-openapi.ts) — method and path, summary where the route gives one, the module that
 * registers it, path/query parameters and body fields with their types and bounds, and each
 * response's fields. Pure: a document in, markdown out.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { JsonSchema, OpenApiDocument, OpenApiOperation } from './engine-openapi.js';

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;
/** Nested fields are listed down to this depth (a.b.c.d); deeper ones are summarised by their type. */
const MAX_DEPTH = 4;

export interface Operation {
  method: string;
  path: string;
  op: OpenApiOperation;
}

/** Every operation, in the document's path order, methods in a fixed order. */
export function operationsOf(doc: OpenApiDocument): Operation[] {
  const out: Operation[] = [];
  for (const [p, ops] of Object.entries(doc.paths)) for (const m of METHODS) if (ops[m]) out.push({ method: m.toUpperCase(), path: p, op: ops[m] });
  return out;
}

/** How a route is named in the reference (and searched for by the test): `GET /browsers/{id}`. */
export function routeTitle(o: { method: string; path: string }): string {
  return `${o.method} ${o.path}`;
}

function cell(s: string): string {
  return s.replace(/\|/g, '\\|').replace(/\n+/g, ' ');
}

/** A schema's type in one line: `string`, `integer`, `"a" \| "b"`, `object[]`, `string \| null`. */
export function typeOf(s: JsonSchema | undefined): string {
  if (!s) return 'any';
  const alts = (s.anyOf ?? s.oneOf) as JsonSchema[] | undefined;
  if (alts) return [...new Set(alts.map(typeOf))].join(' | ');
  if (s.const !== undefined) return JSON.stringify(s.const);
  if (Array.isArray(s.enum)) return s.enum.map((v) => JSON.stringify(v)).join(' | ');
  const t = Array.isArray(s.type) ? (s.type as string[]).join(' | ') : (s.type as string | undefined);
  if (t === 'array') return `${typeOf(s.items as JsonSchema | undefined)}[]`;
  if (t) return s.format ? `${t} (${String(s.format)})` : t;
  if (s.properties) return 'object';
  return 'any';
}

/** Bounds and the default, e.g. `1–255 chars`, `≥ 0`, `≤ 100 items`, `default 30`. */
export function boundsOf(s: JsonSchema | undefined): string {
  if (!s) return '';
  const alts = (s.anyOf ?? s.oneOf) as JsonSchema[] | undefined;
  const parts: string[] = alts ? alts.map(boundsOf).filter(Boolean) : [];
  const range = (lo: unknown, hi: unknown, unit: string) => {
    if (lo !== undefined && hi !== undefined) parts.push(`${String(lo)}–${String(hi)}${unit}`);
    else if (lo !== undefined) parts.push(`≥ ${String(lo)}${unit}`);
    else if (hi !== undefined) parts.push(`≤ ${String(hi)}${unit}`);
  };
  range(s.minLength, s.maxLength, ' chars');
  range(s.minimum, s.maximum, '');
  range(s.minItems, s.maxItems, ' items');
  if (s.exclusiveMinimum !== undefined) parts.push(`> ${String(s.exclusiveMinimum)}`);
  if (s.exclusiveMaximum !== undefined) parts.push(`< ${String(s.exclusiveMaximum)}`);
  if (s.pattern !== undefined) parts.push(`pattern \`${String(s.pattern)}\``);
  if (s.default !== undefined) parts.push(`default ${JSON.stringify(s.default)}`);
  return [...new Set(parts)].join(', ');
}

interface Field {
  name: string;
  schema: JsonSchema;
  required: boolean;
}

/** An object schema's fields, nested ones as `a.b` and array items as `a[].b`. */
export function fieldsOf(s: JsonSchema | undefined, prefix = '', depth = 0): Field[] {
  if (!s || depth >= MAX_DEPTH) return [];
  const alts = (s.anyOf ?? s.oneOf) as JsonSchema[] | undefined;
  const objectAlt = alts?.find((a) => a.properties);
  if (objectAlt) return fieldsOf(objectAlt, prefix, depth);
  if (s.type === 'array' && prefix) return fieldsOf(s.items as JsonSchema | undefined, `${prefix}[]`, depth);
  const props = s.properties as Record<string, JsonSchema> | undefined;
  if (!props) return [];
  const required = new Set((s.required as string[] | undefined) ?? []);
  const out: Field[] = [];
  for (const [name, sub] of Object.entries(props)) {
    const full = prefix ? `${prefix}.${name}` : name;
    out.push({ name: full, schema: sub, required: required.has(name) });
    out.push(...fieldsOf(sub, full, depth + 1));
  }
  return out;
}

function fieldTable(fields: Field[]): string[] {
  if (!fields.length) return [];
  return [
    '| Field | Type | Required | Bounds | Description |',
    '|---|---|---|---|---|',
    ...fields.map(
      (f) =>
        `| \`${f.name}\` | ${cell(typeOf(f.schema))} | ${f.required ? 'yes' : ''} | ${cell(boundsOf(f.schema))} | ${cell(String(f.schema.description ?? ''))} |`,
    ),
  ];
}

function jsonSchemaOf(content: Record<string, { schema?: JsonSchema }> | undefined): { type: string; schema?: JsonSchema } | undefined {
  if (!content) return undefined;
  const [type, media] = Object.entries(content)[0] ?? [];
  return type ? { type, schema: media?.schema } : undefined;
}

/**
 * Where each route is registered: the api module whose source holds its path as Fastify spells
 * it (`/browsers/:id`) or its route-table key (`route(app, 'GET /browsers/:id', …)`), found by
 * scanning src/engine/api/. Paths built at run time have none.
 */
export function routeSources(root: string): Map<string, string> {
  const dir = path.join(root, 'src/engine/api');
  const byPath = new Map<string, string>();
  for (const file of fs.readdirSync(dir).sort()) {
    if (!file.endsWith('.ts') || file.endsWith('.test.ts')) continue;
    const text = fs.readFileSync(path.join(dir, file), 'utf8');
    for (const m of text.matchAll(/['`](?:(?:GET|POST|PUT|PATCH|DELETE|HEAD)(?:\|[A-Z]+)* )?(\/[A-Za-z0-9_:{}./*-]*)['`]/g))
      if (!byPath.has(m[1])) byPath.set(m[1], `src/engine/api/${file}`);
  }
  return byPath;
}

function fastifyPath(openapiPath: string): string {
  return openapiPath.replace(/\{([^}]+)\}/g, ':$1');
}

function renderOperation(o: Operation, sources: Map<string, string>): string[] {
  const lines = [`### ${routeTitle(o)}`, ''];
  const about = [o.op.summary, o.op.description].filter(Boolean).join(' — ');
  if (about) lines.push(about, '');
  if (o.op.deprecated) lines.push('**Deprecated.**', '');
  const source = sources.get(fastifyPath(o.path));
  if (source) lines.push(`Registered in [\`${source}\`](../../${source}).`, '');
  const params = o.op.parameters ?? [];
  for (const where of ['path', 'query', 'header'] as const) {
    const ps = params.filter((p) => p.in === where);
    if (!ps.length) continue;
    lines.push(`${where === 'path' ? 'Path' : where === 'query' ? 'Query' : 'Header'} parameters:`, '');
    lines.push(
      ...fieldTable(ps.map((p) => ({ name: p.name, schema: { ...p.schema, description: p.description ?? p.schema?.description }, required: !!p.required }))),
      '',
    );
  }
  const body = jsonSchemaOf(o.op.requestBody?.content);
  if (body) {
    const fields = fieldsOf(body.schema);
    lines.push(`Body (\`${body.type}\`${o.op.requestBody?.required ? ', required' : ''})${fields.length ? ':' : `: ${typeOf(body.schema)}`}`, '');
    if (fields.length) lines.push(...fieldTable(fields), '');
  }
  for (const [status, r] of Object.entries(o.op.responses ?? {})) {
    const media = jsonSchemaOf(r.content);
    const fields = fieldsOf(media?.schema?.type === 'array' ? (media.schema.items as JsonSchema) : media?.schema).filter((f) => f.name.split('.').length <= 2);
    const shape = media ? ` \`${media.type}\`, ${typeOf(media.schema)}` : '';
    const desc = r.description && r.description !== 'Default Response' ? ` — ${r.description}` : '';
    lines.push(`Response **${status}**${shape}${desc}${fields.length ? ':' : ''}`, '');
    if (fields.length) lines.push(...fieldTable(fields), '');
  }
  return lines;
}

export function renderApi(doc: OpenApiDocument, root: string): string {
  const ops = operationsOf(doc);
  const sources = routeSources(root);
  const byTag = new Map<string, Operation[]>();
  for (const o of ops) {
    const tag = o.op.tags?.[0] ?? 'other';
    byTag.set(tag, [...(byTag.get(tag) ?? []), o]);
  }
  const tags = [...byTag.keys()].sort();
  const lines = [`${ops.length} operations on ${Object.keys(doc.paths).length} paths, grouped by tag.`, ''];
  for (const tag of tags)
    lines.push(
      `- [${tag}](#${tag
        .toLowerCase()
        .replace(/[^a-z0-9 _-]/g, '')
        .replace(/ /g, '-')}) (${byTag.get(tag)!.length})`,
    );
  lines.push('');
  for (const tag of tags) {
    lines.push(`## ${tag}`, '');
    for (const o of byTag.get(tag)!) lines.push(...renderOperation(o, sources));
  }
  return lines.join('\n');
}
