/**
 * Forward compatibility (Kernel spec §17): a newer client may send body fields this engine does
 * not know yet, and a strict schema would answer them 400. Body validation therefore strips
 * every property a schema's `additionalProperties: false` refuses and validates again; the
 * request goes on without them and the names are kept for the debug log (`ignoredFieldsOf`).
 * Other errors still answer 400. Inside a union (`anyOf`/`oneOf`) a property is stripped only
 * when every other branch failed on the value's JSON type alone (`Object | null`, the usual
 * nullable): otherwise which branch it was extra to is not known, and the union stays strict.
 */
import type { ErrorObject, ValidateFunction } from 'ajv';

const ignored = new WeakMap<object, string[]>();

/** The body fields the validator dropped from this request body (dotted paths), if any. */
export function ignoredFieldsOf(body: unknown): string[] | undefined {
  return body !== null && typeof body === 'object' ? ignored.get(body) : undefined;
}

const unescape = (s: string) => s.replace(/~1/g, '/').replace(/~0/g, '~');

const UNION = /\/(anyOf|oneOf)\/(\d+)\//g;

/** What failed inside one branch of a union: other errors, and the value paths of its type errors. */
interface BranchErrors {
  nonType: number;
  typePaths: Set<string>;
}

/**
 * Every union's errors by branch, gathered in one pass: each extra property then looks up its
 * unions instead of scanning all errors (with thousands of extras in a nullable object that scan
 * was quadratic: 16,000 of them in `telemetry` held the event loop for over a minute).
 */
function unionErrors(all: ErrorObject[]): Map<string, Map<string, BranchErrors>> {
  const unions = new Map<string, Map<string, BranchErrors>>();
  for (const o of all) {
    for (const m of o.schemaPath.matchAll(UNION)) {
      const union = o.schemaPath.slice(0, m.index + m[1].length + 2);
      let branches = unions.get(union);
      if (!branches) unions.set(union, (branches = new Map()));
      let b = branches.get(m[2]);
      if (!b) branches.set(m[2], (b = { nonType: 0, typePaths: new Set() }));
      if (o.keyword === 'type') b.typePaths.add(o.instancePath + '/');
      else b.nonType++;
    }
  }
  return unions;
}

/** Whether `e` is an extra property the schema would otherwise accept (see the header). */
function strippable(e: ErrorObject, unions: Map<string, Map<string, BranchErrors>>): boolean {
  if (e.keyword !== 'additionalProperties') return false;
  const at = e.instancePath + '/';
  for (const m of e.schemaPath.matchAll(UNION)) {
    const union = e.schemaPath.slice(0, m.index + m[1].length + 2);
    let others = 0;
    for (const [branch, b] of unions.get(union) ?? []) {
      if (branch === m[2]) continue;
      if (b.nonType > 0) return false;
      // Stops at the first path that is not one of `at`'s ancestors: at most its depth + 1 steps.
      for (const p of b.typePaths) {
        if (!at.startsWith(p)) return false;
        others++;
      }
    }
    if (others === 0) return false;
  }
  return true;
}

/**
 * Only what JSON.parse makes is stripped: a route whose content-type parser hands over a stream
 * or a Buffer (uploads, raw bodies) still meets its schema, and deleting the "unknown" own
 * properties of a request stream (`_readableState`…) broke Node's HTTP server.
 */
function isJsonObject(v: unknown): v is Record<string, unknown> {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/** The object at a JSON pointer inside `root` (undefined when the path does not lead to one). */
function objectAt(root: unknown, pointer: string): Record<string, unknown> | undefined {
  let cur = root;
  for (const seg of pointer.split('/').slice(1).map(unescape)) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[seg];
  }
  return isJsonObject(cur) ? cur : undefined;
}

/** Wraps a compiled body validator so unknown properties are dropped instead of refused. */
export function ignoringUnknownFields(validate: ValidateFunction): ValidateFunction {
  const lenient = ((data: unknown, ...rest: unknown[]) => {
    const call = validate as unknown as (d: unknown, ...r: unknown[]) => boolean;
    if (call(data, ...rest)) return true;
    const all = validate.errors ?? [];
    const unions = isJsonObject(data) || Array.isArray(data) ? unionErrors(all) : undefined;
    const extras = unions ? all.filter((e) => strippable(e, unions)) : [];
    if (extras.length === 0) {
      lenient.errors = validate.errors;
      return false;
    }
    const names: string[] = [];
    for (const e of extras) {
      const key = (e.params as { additionalProperty: string }).additionalProperty;
      const obj = objectAt(data, e.instancePath);
      if (obj && Object.prototype.hasOwnProperty.call(obj, key)) {
        delete obj[key];
        names.push([...e.instancePath.split('/').slice(1).map(unescape), key].join('.'));
      }
    }
    const ok = call(data, ...rest);
    lenient.errors = ok ? null : validate.errors;
    if (ok && data !== null && typeof data === 'object') ignored.set(data, names);
    return ok;
  }) as ValidateFunction;
  lenient.schema = validate.schema;
  return lenient;
}
