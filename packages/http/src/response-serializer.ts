import fastJson from 'fast-json-stringify';
import { ResponseSerializationError } from 'fastify-type-provider-zod';
import { z } from 'zod';

type JsonSchema = Record<string, unknown>;
type Serializer = (data: unknown) => string;

const PRIMITIVES = new Set(['string', 'number', 'integer', 'boolean']);

/**
 * A zod schema's output as JSON Schema that fast-json-stringify compiles well: `anyOf [X, null]`
 * (what zod writes for a constrained `.nullable()`) becomes X with `null` among its types (a
 * primitive) or `nullable: true` (an object or array), so no branch needs ajv at run time; a
 * property with a default is not required (fast-json-stringify writes the default).
 */
export function normaliseJsonSchema(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(normaliseJsonSchema);
  if (!node || typeof node !== 'object') return node;
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(node as JsonSchema)) {
    if (key === '$schema') continue;
    out[key] = key === 'properties' || key === 'definitions' || key === '$defs' ? mapValues(value as JsonSchema) : normaliseJsonSchema(value);
  }
  const anyOf = out.anyOf as JsonSchema[] | undefined;
  if (Array.isArray(anyOf) && anyOf.length === 2) {
    const nullIndex = anyOf.findIndex((s) => s.type === 'null' && Object.keys(s).length === 1);
    const other = anyOf[1 - nullIndex];
    if (nullIndex >= 0 && other && typeof other.type === 'string') {
      const { anyOf: _drop, ...rest } = out;
      return PRIMITIVES.has(other.type) ? { ...rest, ...other, type: [other.type, 'null'] } : { ...rest, ...other, nullable: true };
    }
  }
  if (Array.isArray(out.required) && out.properties) {
    const properties = out.properties as Record<string, JsonSchema>;
    out.required = (out.required as string[]).filter((name) => properties[name]?.default === undefined);
  }
  return out;
}

function mapValues(record: JsonSchema): JsonSchema {
  return Object.fromEntries(Object.entries(record).map(([k, v]) => [k, normaliseJsonSchema(v)]));
}

/**
 * A compiled serialiser for a response schema, or null when the schema has something JSON Schema
 * cannot say (a transform, a custom check, a date object): those routes keep zod's parse.
 */
export function compileResponseSchema(schema: z.ZodType): Serializer | null {
  let json: unknown;
  try {
    json = z.toJSONSchema(schema, { target: 'draft-7', io: 'output', unrepresentable: 'throw', reused: 'inline', cycles: 'throw' });
  } catch {
    return null; // not expressible as JSON Schema: zod parses this route's answers (below)
  }
  return fastJson(normaliseJsonSchema(json) as Parameters<typeof fastJson>[0]) as Serializer;
}

export interface ResponseSerializerOptions {
  /**
   * Also check every answer against its zod schema and refuse one that does not match (500), as
   * the zod serialiser did: on in tests, so a response that drifts from the contract fails them;
   * off in production, where the compiled serialiser writes only the declared fields.
   */
  validate: boolean;
}

function resolveSchema(maybe: unknown): z.ZodType {
  if (maybe instanceof z.ZodType) return maybe;
  const inner = (maybe as { properties?: unknown } | null)?.properties;
  if (inner instanceof z.ZodType) return inner;
  throw new Error(`Response schema is not a zod schema: ${JSON.stringify(maybe)}`);
}

/**
 * Fastify serializer compiler of the fleet: each route's zod response schema compiled once into a
 * fast-json-stringify function (writes exactly the declared fields, in order, no intermediate
 * object), instead of a zod parse plus JSON.stringify of every answer (10 % of catalog's CPU on a
 * page of tracks). Schemas JSON Schema cannot express fall back to the zod parse.
 */
export function responseSerializerCompiler(options: ResponseSerializerOptions) {
  return ({ schema: maybeSchema, method, url }: { schema: unknown; method: string; url: string }): Serializer => {
    const schema = resolveSchema(maybeSchema);
    const compiled = compileResponseSchema(schema);
    const parse = (data: unknown): unknown => {
      const result = schema.safeParse(data);
      if (!result.success) throw new ResponseSerializationError(method, url, { cause: result.error });
      return result.data;
    };
    if (!compiled) return (data) => JSON.stringify(parse(data));
    if (!options.validate) return compiled;
    return (data) => {
      parse(data);
      return compiled(data);
    };
  };
}

/** Validation of answers: `RESPONSE_VALIDATION=1|0` decides; by default on when NODE_ENV is test. */
export function responseValidationWanted(env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.RESPONSE_VALIDATION === '1') return true;
  if (env.RESPONSE_VALIDATION === '0') return false;
  return env.NODE_ENV === 'test';
}
