/**
 * Hostile request cases generated from the merged OpenAPI document: the classes that
 * once answered 500 or hung, plus wrong types, missing and extra fields, huge numbers, empty and
 * 1 MB strings. Used by test/fuzz.test.ts (CI) and scripts/fuzz.ts (a larger run).
 */

import { ROUTES } from '@msp/contracts';

type JsonObject = Record<string, unknown>;

export interface Operation {
  method: string;
  /** OpenAPI path, e.g. `/api/tracks/{trackId}`. */
  path: string;
  pathParams: string[];
  queryParams: Array<{ name: string; type: string }>;
  body: { kind: 'json' | 'multipart'; properties: Record<string, JsonObject>; required: string[] } | null;
}

export interface FuzzCase {
  operation: string;
  label: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string | Buffer;
  destructive: boolean;
}

const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

function resolveRef(doc: JsonObject, schema: unknown): JsonObject {
  let current = schema;
  for (let i = 0; i < 5 && isObject(current) && typeof current.$ref === 'string'; i++) {
    const parts = (current.$ref as string).replace(/^#\//, '').split('/');
    current = parts.reduce<unknown>((node, key) => (isObject(node) ? node[key] : undefined), doc);
  }
  return isObject(current) ? current : {};
}

/** The first concrete JSON type of a schema (through anyOf/oneOf/nullable). */
export function typeOf(schema: JsonObject): string {
  if (typeof schema.type === 'string') return schema.type;
  if (Array.isArray(schema.type)) return (schema.type.find((t) => t !== 'null') as string) ?? 'string';
  for (const key of ['anyOf', 'oneOf', 'allOf']) {
    const options = schema[key];
    if (Array.isArray(options)) {
      for (const option of options) {
        if (isObject(option) && option.type !== 'null') return typeOf(option);
      }
    }
  }
  if (isObject(schema.properties)) return 'object';
  return 'string';
}

function objectSchema(doc: JsonObject, schema: unknown): { properties: Record<string, JsonObject>; required: string[] } {
  const resolved = resolveRef(doc, schema);
  for (const key of ['anyOf', 'oneOf', 'allOf']) {
    const options = resolved[key];
    if (Array.isArray(options)) {
      const withProps = options.map((o) => resolveRef(doc, o)).find((o) => isObject(o.properties));
      if (withProps) return objectSchema(doc, withProps);
    }
  }
  const properties = isObject(resolved.properties) ? (resolved.properties as Record<string, JsonObject>) : {};
  const required = Array.isArray(resolved.required) ? (resolved.required as string[]) : [];
  return { properties, required };
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

/** Every operation under /api of the document, except the gateway's own and the websocket. */
export function operationsOf(doc: { paths: Record<string, JsonObject> } & JsonObject): Operation[] {
  const out: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    if (!path.startsWith('/api/') || path === '/api/health' || path === '/api/openapi.json' || path.startsWith('/api/docs') || path.startsWith('/api/ws'))
      continue;
    for (const method of METHODS) {
      const op = item[method];
      if (!isObject(op)) continue;
      const parameters = (Array.isArray(op.parameters) ? op.parameters : []).map((p) => resolveRef(doc, p));
      const pathParams = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
      const queryParams = parameters.filter((p) => p.in === 'query').map((p) => ({ name: String(p.name), type: typeOf(resolveRef(doc, p.schema)) }));
      let body: Operation['body'] = null;
      const requestBody = resolveRef(doc, op.requestBody);
      const content = isObject(requestBody.content) ? requestBody.content : {};
      if (isObject(content['application/json'])) {
        body = { kind: 'json', ...objectSchema(doc, (content['application/json'] as JsonObject).schema) };
      } else if (isObject(content['multipart/form-data'])) {
        body = { kind: 'multipart', ...objectSchema(doc, (content['multipart/form-data'] as JsonObject).schema) };
      } else if (method !== 'get' && method !== 'delete' && Object.keys(content).length > 0) {
        body = { kind: 'json', properties: {}, required: [] };
      }
      out.push({ method: method.toUpperCase(), path, pathParams, queryParams, body });
    }
  }
  return out;
}

const BAD_PATH_VALUES: Array<[string, string]> = [
  ['id past int32', '2147483648'],
  ['20-digit id', '99999999999999999999'],
  ['negative', '-1'],
  ['fraction', '1.5'],
  ['bad escape', '%FF'],
  ['NUL', 'a%00b'],
  ['lone surrogate (CESU)', '%ED%A0%80'],
  ['600 chars', 'x'.repeat(600)],
];

const BAD_QUERY_VALUES: Array<[string, string]> = [
  ['bad escape', '%FF'],
  ['NUL', '%00'],
  ['lone surrogate (CESU)', '%ED%A0%80'],
  ['huge number', '99999999999999999999'],
  ['negative', '-1'],
  ['5000 chars', 'q'.repeat(5000)],
];

function wrongTypeFor(type: string): unknown[] {
  switch (type) {
    case 'string':
      return [12345, true, { a: 1 }, ['x']];
    case 'integer':
    case 'number':
      return ['abc', 1e308, -1, 2147483648, 1.5, true];
    case 'boolean':
      return ['yes', 1, null];
    case 'array':
      return [{ a: 1 }, 'x', Array.from({ length: 10_000 }, () => 'x')];
    case 'object':
      return [['x'], 'x', 1];
    default:
      return [null];
  }
}

/** Operations that end the caller's session or delete things: fuzzed last, so they cannot hide the others behind a 401. */
export function isDestructive(op: Operation): boolean {
  return op.method === 'DELETE' || /logout|\/ban|\/suspend|reset-password|\/role|\/tier|\/permalink/.test(op.path);
}

/** File part names the multipart operations read (the document does not list multipart fields). */
const MULTIPART_FILE_PARTS = ['audioFile', 'coverImage', 'coverArt', 'profilePic', 'coverPic'];

/** Operations that take multipart/form-data (the contract's upload and image routes), whatever the document says of their body. */
const MULTIPART_OPERATIONS = new Set(ROUTES.filter((r) => r.bodyKind === 'upload' || r.bodyKind === 'image').map((r) => `${r.method} /api${r.path}`));

/** The cases for one operation (its valid-looking path uses id 1 for every parameter). */
export function generateCases(op: Operation): FuzzCase[] {
  const operation = `${op.method} ${op.path}`;
  const destructive = isDestructive(op);
  const fill = (value: string) => op.path.replace(/\{[^}]+\}/g, value);
  const okPath = fill('1');
  const cases: FuzzCase[] = [];
  const add = (label: string, path: string, body?: string | Buffer, headers: Record<string, string> = {}) => {
    cases.push({ operation, label, method: op.method, path, headers, body, destructive });
  };
  const jsonBody = op.body?.kind === 'json' ? '{}' : undefined;

  for (const [label, value] of BAD_PATH_VALUES) {
    if (op.pathParams.length > 0) add(`path ${label}`, fill(value), jsonBody);
  }
  add('query page bad escape', `${okPath}?page=%FF`, jsonBody);
  add('query page huge', `${okPath}?page=99999999999999999999&size=100`, jsonBody);
  add('query page past int', `${okPath}?page=2147483647&size=100`, jsonBody);
  add('query key bad escape', `${okPath}?%FF=1`, jsonBody);
  for (const param of op.queryParams) {
    for (const [label, value] of BAD_QUERY_VALUES) add(`query ${param.name} ${label}`, `${okPath}?${encodeURIComponent(param.name)}=${value}`, jsonBody);
  }

  if (op.body?.kind === 'json') {
    const json = (value: unknown) => JSON.stringify(value);
    add('body invalid JSON', okPath, '{"a":');
    add('body JSON array', okPath, '[]');
    add('body JSON null', okPath, 'null');
    add('body JSON string', okPath, '"x"');
    add('body 10,000-deep array', okPath, '['.repeat(10_000) + ']'.repeat(10_000));
    add('body 10,000-deep object', okPath, '{"a":'.repeat(10_000) + '1' + '}'.repeat(10_000));
    add('body missing fields', okPath, '{}');
    add('body wrong content type', okPath, '{}', { 'content-type': 'text/plain' });
    add('body multipart without boundary', okPath, 'x', { 'content-type': 'multipart/form-data' });
    add('body __proto__', okPath, '{"__proto__":{"admin":true}}');
    add('body NUL key', okPath, '{"a\\u0000b":1}');
    const base: Record<string, unknown> = { extraField: 'ignored' };
    for (const [name, schema] of Object.entries(op.body.properties)) {
      const type = typeOf(schema);
      for (const wrong of wrongTypeFor(type)) add(`body ${name} wrong type ${JSON.stringify(wrong)?.slice(0, 20)}`, okPath, json({ ...base, [name]: wrong }));
      if (type === 'string') {
        add(`body ${name} NUL`, okPath, json({ [name]: 'a\u0000b' }));
        add(`body ${name} lone surrogate`, okPath, `{"${name}":"a\\ud800b"}`);
        add(`body ${name} empty`, okPath, json({ [name]: '' }));
        add(`body ${name} 1 MB`, okPath, json({ [name]: 'x'.repeat(1_000_000) }));
      }
      if (type === 'array') add(`body ${name} array of NUL strings`, okPath, json({ [name]: ['a\u0000'] }));
    }
    if (Object.keys(op.body.properties).length > 0) {
      const allNul = Object.fromEntries(Object.entries(op.body.properties).map(([k, s]) => [k, typeOf(s) === 'string' ? 'a\u0000' : 2147483648]));
      add('body every field hostile', okPath, json(allNul));
    }
  } else if (op.body?.kind === 'multipart') {
    add('multipart without boundary', okPath, 'garbage', { 'content-type': 'multipart/form-data' });
    add('multipart garbage', okPath, 'garbage', { 'content-type': 'multipart/form-data; boundary=zzz' });
    add('multipart truncated', okPath, '--zzz\r\nContent-Disposition: form-data; name="title"\r\n\r\nabc', {
      'content-type': 'multipart/form-data; boundary=zzz',
    });
    add('multipart NUL field', okPath, '--zzz\r\nContent-Disposition: form-data; name="title"\r\n\r\na\u0000b\r\n--zzz--\r\n', {
      'content-type': 'multipart/form-data; boundary=zzz',
    });
    add('multipart as JSON', okPath, '{"title":"a\\u0000"}');
  }
  if (op.body?.kind === 'multipart' || MULTIPART_OPERATIONS.has(operation)) {
    // Bodies complete per Content-Length whose multipart framing ends early: 400, never a wait.
    const boundary = { 'content-type': 'multipart/form-data; boundary=zzz' };
    const field = (name: string, value: string) => `--zzz\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
    add('multipart without closing delimiter', okPath, field('title', 'abc') + field('genre', 'Ambient'), boundary);
    add('multipart preamble only', okPath, 'a preamble and no delimiter\r\n', boundary);
    for (const name of MULTIPART_FILE_PARTS) {
      const head = `--zzz\r\nContent-Disposition: form-data; name="${name}"; filename="f"\r\nContent-Type: application/octet-stream\r\n\r\n`;
      add(
        `multipart cut in file ${name}`,
        okPath,
        Buffer.concat([Buffer.from(field('title', 'abc') + head), Buffer.from('ID3'), Buffer.alloc(4000)]),
        boundary,
      );
    }
  }
  return cases;
}
