/**
 * fast-check arbitraries from the engine's own JSON schemas (as /openapi.json publishes them):
 * values of the right shape whose leaves are hostile (control characters, lone surrogates,
 * huge/negative/fractional numbers, long strings), sprinkled with values of the wrong type,
 * extra properties and deep nesting, so the checks behind validation are reached too.
 */
import fc from 'fast-check';

export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
}

/** Strings a parser or a shell may choke on: any code point (lone surrogates too), NUL, long runs. */
export const hostileString: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 20 }) },
  fc.constantFrom(
    '',
    ' ',
    '\u0000',
    '\ud800',
    '\udfff\ud800',
    '../../../../etc/passwd',
    '/proc/self/environ',
    '%00',
    '${HOME}',
    '$(id)',
    '-rf',
    'a'.repeat(5_000),
    '\u202e\u0007\u001b[2J',
  ),
);

/** Numbers at every edge a column, a timer or an array index has. */
export const hostileNumber: fc.Arbitrary<number> = fc.oneof(
  fc.integer(),
  fc.double({ noNaN: true }),
  fc.constantFrom(-1, 0, 0.5, -0.5, 1e20, -1e20, 2 ** 31, 2 ** 32 + 1, 2 ** 53 + 2, Number.MAX_VALUE, Number.MIN_VALUE, -Number.MAX_VALUE),
);

/** A JSON value of any type, for where the schema wants something else. */
export const wrongValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }),
  hostileString,
  hostileNumber,
  fc.constantFrom(null, true, [], {}, { $gt: '' }, JSON.parse('{"__proto__": {"x": 1}, "constructor": {"prototype": {"y": 1}}}') as unknown),
  fc.integer({ min: 50, max: 2_000 }).map((depth) => nested(depth)),
);

function nested(depth: number): unknown {
  let v: unknown = 1;
  for (let i = 0; i < depth; i++) v = i % 2 ? [v] : { a: v };
  return v;
}

const typesOf = (s: JsonSchema): string[] => (Array.isArray(s.type) ? s.type : s.type ? [s.type] : []);

function numberIn(s: JsonSchema, integer: boolean): fc.Arbitrary<number> {
  const min = s.minimum ?? -1e9;
  const max = s.maximum ?? 1e9;
  const inRange = integer ? fc.integer({ min: Math.max(min, -(2 ** 31)), max: Math.min(max, 2 ** 31) }) : fc.double({ min, max, noNaN: true });
  return fc.oneof(inRange, hostileNumber);
}

/** A value for `schema`: mostly its shape with hostile leaves, sometimes the wrong type altogether. */
export function valueOf(schema: JsonSchema | undefined, depth = 0): fc.Arbitrary<unknown> {
  if (!schema || depth > 6) return wrongValue;
  return fc.oneof({ weight: 5, arbitrary: shapedValue(schema, depth) }, { weight: 1, arbitrary: wrongValue });
}

function shapedValue(s: JsonSchema, depth: number): fc.Arbitrary<unknown> {
  if (s.enum) return fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...s.enum) }, hostileString);
  if (s.anyOf?.length) return fc.oneof(...s.anyOf.map((a) => valueOf(a, depth + 1)));
  const types = typesOf(s);
  const arbs: Array<fc.Arbitrary<unknown>> = [];
  for (const t of types) {
    if (t === 'object') arbs.push(objectOf(s, depth));
    else if (t === 'array') arbs.push(fc.array(valueOf(s.items, depth + 1), { maxLength: 4 }));
    else if (t === 'string') arbs.push(hostileString);
    else if (t === 'integer') arbs.push(numberIn(s, true));
    else if (t === 'number') arbs.push(numberIn(s, false));
    else if (t === 'boolean') arbs.push(fc.boolean());
    else if (t === 'null') arbs.push(fc.constant(null));
  }
  return arbs.length ? fc.oneof(...arbs) : wrongValue;
}

function objectOf(s: JsonSchema, depth: number): fc.Arbitrary<unknown> {
  const props = s.properties ?? {};
  const model = Object.fromEntries(Object.entries(props).map(([k, p]) => [k, valueOf(p, depth + 1)]));
  const known = fc.record(model, { requiredKeys: (s.required ?? []).filter((k) => k in props) });
  // Now and then a property the schema does not know, which a route might pass on unchecked.
  const extra = fc.dictionary(hostileString, wrongValue, { maxKeys: 2 });
  return fc.tuple(known, fc.boolean(), extra).map(([k, addExtra, x]) => (addExtra ? { ...x, ...k } : k));
}

/** A URL path segment or query value: percent-encoded arbitrary bytes (invalid UTF-8 too), or a hostile string. */
export const hostileSegment: fc.Arbitrary<string> = fc.oneof(
  fc.uint8Array({ minLength: 1, maxLength: 24 }).map((b) => [...b].map((x) => '%' + x.toString(16).padStart(2, '0')).join('')),
  hostileString.map((s) => encodeURIComponent(s.replace(/[\ud800-\udfff]/g, '\ufffd')) || '%20'),
  fc.constantFrom('%E0%A4%A', '%', '%zz', '..', '.', '%2e%2e%2f%2e%2e', 'x'.repeat(3_000)),
);
