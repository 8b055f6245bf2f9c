/**
 * `pnpm docs:api`: writes docs/api.md, the public HTTP contract, from the code that states it:
 * the operation table and records of packages/contracts, the error codes of packages/errors and
 * the gateway's body limits and defaults. tests/infra/test/api-docs.test.ts fails when the file
 * differs from what `renderApiDocs()` produces, so the document never drifts from the code.
 *
 *     pnpm docs:api            # write docs/api.md
 *     pnpm docs:api --check    # exit 1 when docs/api.md is stale
 *
 * The output depends on nothing but the source (no dates, no environment), so it is stable.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';

import * as contracts from '../packages/contracts/src/index.ts';
import * as enums from '../packages/contracts/src/enums.ts';
import type { AuthRule, BodyKind, RouteContract } from '../packages/contracts/src/route-types.ts';
import { ERROR_MEANINGS, ERROR_STATUS, defaultMessage, type ErrorCode } from '../packages/errors/src/index.ts';
import { IDENTITY_HEADERS } from '../packages/http/src/identity.ts';
import { bodyLimitFor } from '../gateway/src/body-limit.ts';
import { configShape as gatewayConfigShape } from '../gateway/src/config.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const API_DOCS_PATH = path.join(root, 'docs/api.md');
const RECORDS_DIR = path.join(root, 'packages/contracts/src/records');
const ENUMS_FILE = path.join(root, 'packages/contracts/src/enums.ts');

// ---------------------------------------------------------------------------------------------
// Markdown helpers

/** A table cell: pipes and line breaks would end the cell. */
const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\s*\n\s*/g, ' ');
const code = (text: string) => `\`${text}\``;

function table(head: string[], rows: string[][]): string {
  const lines = [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`];
  for (const row of rows) lines.push(`| ${row.map(cell).join(' | ')} |`);
  return lines.join('\n');
}

/** GitHub's heading anchor. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

const MIB = 1024 * 1024;
function bytes(n: number): string {
  return n % MIB === 0 ? `${n / MIB} MiB` : `${n} bytes`;
}

// ---------------------------------------------------------------------------------------------
// zod schemas, read through their public definition (`_zod.def`) so that any zod object works

interface ZodLike {
  _zod: { def: ZodDef };
}
interface ZodDef {
  type: string;
  [key: string]: unknown;
}
interface CheckDef {
  check: string;
  [key: string]: unknown;
}

function isZod(value: unknown): value is ZodLike {
  if (typeof value !== 'object' || value === null || !('_zod' in value)) return false;
  const internals = (value as { _zod: unknown })._zod;
  return typeof internals === 'object' && internals !== null && typeof (internals as { def?: { type?: unknown } }).def?.type === 'string';
}

const def = (schema: ZodLike) => schema._zod.def;
const inner = (schema: ZodLike) => def(schema).innerType as ZodLike;
const checks = (schema: ZodLike): CheckDef[] => ((def(schema).checks as ZodLike[] | undefined) ?? []).map((check) => check._zod.def as unknown as CheckDef);

function shapeOf(schema: ZodLike): Record<string, ZodLike> {
  return def(schema).shape as Record<string, ZodLike>;
}

/** Names for schemas rendered as a link instead of inline (records, enums, the page item). */
interface Names {
  records: Map<ZodLike, string>;
  enums: Map<ZodLike, string>;
  placeholders: Map<ZodLike, string>;
}

function numberType(schema: ZodLike): string {
  let integer = false;
  let min: number | undefined;
  let max: number | undefined;
  let minExclusive = false;
  let maxExclusive = false;
  for (const check of checks(schema)) {
    if (check.check === 'number_format' && /int/.test(String(check.format))) integer = true;
    if (check.check === 'greater_than') [min, minExclusive] = [check.value as number, !check.inclusive];
    if (check.check === 'less_than') [max, maxExclusive] = [check.value as number, !check.inclusive];
  }
  if (integer && min !== undefined && minExclusive) [min, minExclusive] = [min + 1, false];
  if (integer && max !== undefined && maxExclusive) [max, maxExclusive] = [max - 1, false];
  const name = integer ? 'integer' : 'number';
  if (min !== undefined && max !== undefined && !minExclusive && !maxExclusive) return `${name} ${min}–${max}`;
  const bounds = [min !== undefined ? `${minExclusive ? '>' : '≥'} ${min}` : '', max !== undefined ? `${maxExclusive ? '<' : '≤'} ${max}` : ''].filter(Boolean);
  return bounds.length ? `${name} ${bounds.join(', ')}` : name;
}

function stringType(schema: ZodLike): string {
  const parts: string[] = [];
  let min: number | undefined;
  let max: number | undefined;
  const format = def(schema).format as string | undefined;
  if (format) parts.push(format);
  for (const check of checks(schema)) {
    if (check.check === 'min_length') min = check.minimum as number;
    if (check.check === 'max_length') max = check.maximum as number;
    if (check.check === 'length_equals') [min, max] = [check.length as number, check.length as number];
    if (check.check === 'string_format' && check.format === 'regex') parts.push(code(String(check.pattern)));
    else if (check.check === 'string_format' && check.format !== format) parts.push(String(check.format));
  }
  if (min !== undefined && max !== undefined) parts.push(min === max ? `${min} chars` : `${min}–${max} chars`);
  else if (min !== undefined) parts.push(`≥ ${min} chars`);
  else if (max !== undefined) parts.push(`≤ ${max} chars`);
  return parts.length ? `string (${parts.join(', ')})` : 'string';
}

/** An enum, or a pipe from an enum into a transform (an enum with accepted aliases). */
function enumSource(schema: ZodLike): ZodLike | undefined {
  const d = def(schema);
  if (d.type === 'enum') return schema;
  if (d.type === 'pipe' && def(d.in as ZodLike).type === 'enum' && def(d.out as ZodLike).type === 'transform') return d.in as ZodLike;
  return undefined;
}

function enumValues(schema: ZodLike): string[] {
  const source = enumSource(schema) ?? schema;
  return Object.values(def(source).entries as Record<string, string | number>).map(String);
}

/** The type of a schema in one line. */
function typeName(schema: ZodLike, names: Names): string {
  const placeholder = names.placeholders.get(schema);
  if (placeholder) return placeholder;
  const record = names.records.get(schema);
  if (record) return `[${record}](#${slug(record)})`;
  const enumName = names.enums.get(schema);
  if (enumName) return `[${enumName}](#${slug(enumName)})`;
  const d = def(schema);
  switch (d.type) {
    case 'string':
      return stringType(schema);
    case 'number':
      return numberType(schema);
    case 'boolean':
    case 'null':
    case 'undefined':
    case 'any':
    case 'unknown':
    case 'date':
    case 'bigint':
      return d.type;
    case 'literal':
      return (d.values as unknown[]).map((value) => code(JSON.stringify(value))).join(' | ');
    case 'enum':
      return `enum (${enumValues(schema).map(code).join(', ')})`;
    case 'array': {
      const element = typeName(d.element as ZodLike, names);
      return / \| /.test(element) ? `(${element})[]` : `${element}[]`;
    }
    case 'object':
      return 'object';
    case 'union':
      return (d.options as ZodLike[]).map((option) => typeName(option, names)).join(' | ');
    case 'nullable':
      return `${typeName(inner(schema), names)} | null`;
    case 'optional':
    case 'default':
    case 'prefault':
    case 'readonly':
    case 'catch':
    case 'nonoptional':
      return typeName(inner(schema), names);
    case 'pipe': {
      const out = d.out as ZodLike;
      return def(out).type === 'transform' ? typeName(d.in as ZodLike, names) : typeName(out, names);
    }
    case 'record':
      return `Record<${typeName(d.keyType as ZodLike, names)}, ${typeName(d.valueType as ZodLike, names)}>`;
    case 'tuple':
      return `[${(d.items as ZodLike[]).map((item) => typeName(item, names)).join(', ')}]`;
    case 'lazy':
      return typeName((d.getter as () => ZodLike)(), names);
    default:
      return d.type;
  }
}

interface FieldRow {
  field: string;
  type: string;
  presence: string;
  notes: string;
}

/** Peels optional/nullable/default off a field and says what they mean for its presence. */
function unwrap(schema: ZodLike): { base: ZodLike; presence: string[] } {
  const presence: string[] = [];
  let current = schema;
  for (;;) {
    const type = def(current).type;
    if (type === 'optional') presence.push('optional');
    else if (type === 'nullable') presence.push('nullable');
    else if (type === 'default') presence.push(`default ${JSON.stringify(def(current).defaultValue)}`);
    else if (type !== 'readonly' && type !== 'catch') break;
    current = inner(current);
  }
  return { base: current, presence: [...new Set(presence)] };
}

function fieldRows(shape: Record<string, ZodLike>, prefix: string, comments: (field: string) => string, names: Names, rows: FieldRow[]): FieldRow[] {
  for (const [key, schema] of Object.entries(shape)) {
    const field = `${prefix}${key}`;
    const { base, presence } = unwrap(schema);
    const row = { field, type: typeName(base, names), presence: presence.join(', '), notes: comments(field) };
    rows.push(row);
    const anonymousObject = (s: ZodLike) => def(s).type === 'object' && !names.records.has(s);
    if (anonymousObject(base)) fieldRows(shapeOf(base), `${field}.`, comments, names, rows);
    else if (def(base).type === 'array' && anonymousObject(unwrap(def(base).element as ZodLike).base)) {
      row.type = 'object[]';
      fieldRows(shapeOf(unwrap(def(base).element as ZodLike).base), `${field}[].`, comments, names, rows);
    }
  }
  return rows;
}

// ---------------------------------------------------------------------------------------------
// Doc comments of the contract sources (the records' field notes)

interface SourceComments {
  /** Doc comment above each exported const. */
  declarations: Map<string, string>;
  /** Doc comments of the object-literal properties inside each exported const, by dotted path. */
  fields: Map<string, Map<string, string>>;
  /** `const X = Y.extend(...)`: X → Y, so that inherited fields keep Y's notes. */
  bases: Map<string, string>;
  /** Exported names of each file in source order. */
  order: Map<string, string[]>;
}

function docComment(node: ts.Node, text: string): string {
  const ranges = ts.getLeadingCommentRanges(text, node.getFullStart()) ?? [];
  const lastRange = ranges.at(-1);
  // Only a doc comment right above the node; one separated by a blank line is about the file.
  if (!lastRange || /\n[^\S\n]*\n/.test(text.slice(lastRange.end, node.getStart()))) return '';
  const last = text.slice(lastRange.pos, lastRange.end);
  if (!last.startsWith('/**')) return '';
  return last
    .replace(/^\/\*\*|\*\/$/g, '')
    .split('\n')
    .map((line) => line.replace(/^\s*\* ?/, '').trim())
    .filter((line) => line !== '')
    .join(' ')
    .trim();
}

function readComments(files: string[]): SourceComments {
  const out: SourceComments = { declarations: new Map(), fields: new Map(), bases: new Map(), order: new Map() };
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
    const order: string[] = [];
    out.order.set(file, order);
    for (const statement of source.statements) {
      const exported = ts.canHaveModifiers(statement) && ts.getModifiers(statement)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
      if (!exported) continue;
      if (ts.isVariableStatement(statement)) {
        for (const declaration of statement.declarationList.declarations) {
          if (!ts.isIdentifier(declaration.name) || !declaration.initializer) continue;
          const name = declaration.name.text;
          order.push(name);
          out.declarations.set(name, docComment(statement, text));
          const init = declaration.initializer;
          if (ts.isCallExpression(init) && ts.isPropertyAccessExpression(init.expression) && init.expression.name.text === 'extend') {
            const target = init.expression.expression;
            if (ts.isIdentifier(target)) out.bases.set(name, target.text);
          }
          const fields = new Map<string, string>();
          const visit = (node: ts.Node, prefix: string) => {
            if (ts.isPropertyAssignment(node) && (ts.isIdentifier(node.name) || ts.isStringLiteral(node.name))) {
              const field = `${prefix}${node.name.text}`;
              const comment = docComment(node, text);
              if (comment) fields.set(field, comment);
              ts.forEachChild(node.initializer, (child) => visit(child, `${field}.`));
              return;
            }
            ts.forEachChild(node, (child) => visit(child, prefix));
          };
          visit(init, '');
          out.fields.set(name, fields);
        }
      } else if (ts.isFunctionDeclaration(statement) || ts.isInterfaceDeclaration(statement)) {
        if (statement.name) out.declarations.set(statement.name.text, docComment(statement, text));
      }
    }
  }
  return out;
}

function commentLookup(comments: SourceComments, exportName: string): (field: string) => string {
  return (field) => {
    const key = field.replace(/\[\]/g, '');
    for (let name: string | undefined = exportName; name !== undefined; name = comments.bases.get(name)) {
      const found = comments.fields.get(name)?.get(key);
      if (found) return found;
    }
    return '';
  };
}

// ---------------------------------------------------------------------------------------------
// Sections

const GROUP_TITLES: Record<string, string> = {
  AUTH: 'Authentication',
  SEC: 'Account security',
  USR: 'Users',
  FOL: 'Followers',
  BLK: 'Block',
  TRK: 'Tracks',
  MOD: 'Moderation',
  PLS: 'Playlists',
  ENG: 'Engagement',
  DSC: 'Discovery',
  MSG: 'Conversations',
  NOT: 'Notifications',
  SUB: 'Subscriptions',
  MFA: 'Multi-factor authentication',
  APP: 'Third-party apps',
  MEDIA: 'Media files',
  EMBED: 'Embeds',
  WS: 'Websocket',
};

const AUTH_RULES: Record<AuthRule, string> = {
  none: 'No token needed; an Authorization header is ignored.',
  optional:
    'Works without a token; with one, caller-relative fields (isFollowing, isLiked, …) are filled and the caller sees their own private content. A token sent but invalid, expired or revoked is a 401 all the same.',
  bearer: '`Authorization: Bearer <accessToken>` required (401 UNAUTHORIZED without a valid one). Admin tokens are accepted too, and admins see all content.',
  admin: 'A bearer token with role ADMIN (from MOD-1) required: 401 without a valid token, 403 FORBIDDEN for any other role.',
  'webhook-signature': "No token; the payment provider's signature header is checked by the owner service (R17).",
};

const BODY_KINDS: Record<BodyKind, string> = {
  json: 'JSON body',
  image: 'multipart with an image part (or JSON)',
  upload: 'multipart with the audio file, an optional cover and the fields',
  raw: 'passed to the owner byte for byte (webhook signatures cover the exact bytes)',
  none: 'no body expected',
};

const groupOf = (id: string) => id.replace(/-[^-]*$/, '');

function operationsSection(routes: readonly RouteContract[]): string {
  const groups = new Map<string, RouteContract[]>();
  for (const route of routes) {
    const group = groupOf(route.id);
    groups.set(group, [...(groups.get(group) ?? []), route]);
  }
  const out = [
    '## Operations',
    '',
    'Every public operation, in the order of `ROUTES` (packages/contracts/src/routes.ts, built from one declaration per operation under packages/contracts/src/operations/). Paths start with `/api`; `{name}` is a path parameter. ' +
      '**Auth** is the rule of [Auth rules](#auth-rules); **Body** decides the [body limit](#body-limits). **Errors** lists the codes the operation may ' +
      'answer beyond the [common ones](#errors) (packages/contracts/src/route-errors.ts); "not listed" means the operation has no list yet.',
    '',
  ];
  for (const [group, members] of groups) {
    out.push(`### ${group}: ${GROUP_TITLES[group] ?? group}`, '');
    out.push(
      table(
        ['Id', 'Method', 'Path', 'Auth', 'Owner', 'Body', 'Summary', 'Errors'],
        members.map((route) => {
          const errors = contracts.routeErrors(route.id);
          return [
            route.id,
            route.method,
            code(`/api${route.path}`),
            route.auth,
            route.owner,
            route.bodyKind,
            route.deprecated ? `${route.summary} (deprecated: answers \`Deprecation: true\`)` : route.summary,
            errors === undefined ? 'not listed' : errors.length === 0 ? '—' : errors.join(', '),
          ];
        }),
      ),
      '',
    );
  }
  return out.join('\n');
}

function conventionsSection(): string {
  const { MAX_PAGE_SIZE, DEFAULT_PAGE_SIZE, MAX_ID } = contracts;
  return [
    '## Conventions',
    '',
    '- **Base URL** `{origin}/api`; every path below starts with it; there is no version segment. Links the API builds (profile URLs, permalinks, ' +
      'secret links, embed code, e-mail links) point at the web app (`WEB_BASE_URL`).',
    '- **Bodies** are JSON (`application/json`, UTF-8) unless the operation takes multipart (`multipart/form-data`: booleans as `"true"`/`"false"`, ' +
      'arrays as one JSON-encoded string part). Unknown request fields are ignored. An answer holds exactly the fields of its [record](#records): a ' +
      'nullable field is sent as `null`, never left out; only fields marked optional may be missing. `204` has no body.',
    '- **Access token**: a JWT (RS256) valid 30 minutes (`expiresIn` 1800 s) with claims `sub` (user id), `username`, `role`, `tier`, `sid` ' +
      '(session id), `iat`, `exp`, `jti`. It stops working at once when its session is revoked (logout, refresh-token reuse, password change or ' +
      'reset) or its user is banned or suspended (R14).',
    '- **Refresh token**: an opaque string, one per session, valid 30 days, rotated by every AUTH-2. Sent as cookie ' +
      '`refreshToken=<t>; Path=/api/auth; HttpOnly; SameSite=Lax; Max-Age=2592000` (+ `Secure` in production) by AUTH-1, AUTH-2, AUTH-12, ' +
      'AUTH-13 and USR-5; cleared by AUTH-3 and AUTH-4. AUTH-2 and AUTH-3 also take it as JSON `{refreshToken}` (the body wins over the ' +
      'cookie). It appears in an answer body only when the request carries `X-Refresh-Token-Delivery: body`. Presenting an already rotated ' +
      'token revokes the whole session (401 REFRESH_TOKEN_REUSED). Details: R13.',
    '- **Errors**: every non-2xx answer, from a service or the gateway, is an [ErrorResponse](#errorresponse) whose `code` is one of the ' +
      '[error codes](#error-codes); see [Errors](#errors).',
    `- **Paging**: \`page\` (0-based, default 0) and \`size\` (default ${DEFAULT_PAGE_SIZE}, 1–${MAX_PAGE_SIZE}) query parameters ` +
      '([PageQuery](#pagequery)); anything else is 400 VALIDATION_FAILED. A page past the end returns empty `content` with `isLast: true`. ' +
      'Every paged list answers the [Page](#page) wrapper; the only unpaged list is TRK-20 (a bare array).',
    `- **Ids** are positive integers up to ${MAX_ID}; a path id that is not one is 400 VALIDATION_FAILED.`,
    '- **Timestamps**: date-times are ISO-8601 UTC with milliseconds and `Z` (`2025-03-01T12:00:00.000Z`); dates are `YYYY-MM-DD`. ' +
      'Single exception: `currentPeriodEnd` of the subscription status stays epoch seconds, `currentPeriodEndAt` is its ISO twin.',
    '- **Headers**: `X-Request-Id` is accepted or generated by the gateway and echoed on every answer (and as `requestId` in errors); ' +
      '`Retry-After` comes with 429 and 503; deprecated operations answer with `Deprecation: true`. CORS allows the configured web origins ' +
      'with credentials.',
    '- **Rules**: the business rules R1–R18 that operations follow are in [rules.md](rules.md).',
    '',
  ].join('\n');
}

function errorsSection(): string {
  const common = contracts.COMMON_ERROR_CODES;
  const codes = Object.keys(ERROR_STATUS) as ErrorCode[];
  return [
    '## Errors',
    '',
    'Every error answer is an [ErrorResponse](#errorresponse). Codes every operation may answer, not repeated in the operation tables: ' +
      `${common.join(', ')}. ` +
      'A `bearer` or `optional` route answers 401 UNAUTHORIZED for a token that is invalid, expired or revoked, and 403 ACCOUNT_BANNED or ' +
      'ACCOUNT_SUSPENDED for a locked account (R14).',
    '',
    '### Error codes',
    '',
    'packages/errors/src/codes.ts maps each code to its status (the only place that does); the meanings are packages/errors/src/meanings.ts.',
    '',
    table(
      ['Code', 'Status', 'When'],
      codes.map((c) => [c, String(ERROR_STATUS[c]), ERROR_MEANINGS[c] ?? defaultMessage(c)]),
    ),
    '',
  ].join('\n');
}

async function recordsSection(names: Names, comments: SourceComments): Promise<string> {
  const out = [
    '## Records',
    '',
    'The shapes the operations take and answer: the zod schemas of packages/contracts/src/records, by file. ' +
      '**Presence**: `nullable` is always sent, possibly `null`; `optional` may be missing (the note says when); `default` is what a missing input becomes.',
    '',
  ];
  for (const file of recordFiles()) {
    const module = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
    const entries = (comments.order.get(file) ?? [])
      .map((name) => [name, module[name]] as const)
      .filter(([name, value]) => name.endsWith('Schema') && isZod(value) && def(value).type === 'object');
    const pageFactory = path.basename(file) === 'page.ts';
    if (entries.length === 0 && !pageFactory) continue;
    out.push(`### records/${path.basename(file)}`, '');
    if (pageFactory) {
      const item = contracts.CountSchema.describe('page item');
      const page = contracts.pageSchema(item) as unknown as ZodLike;
      const pageNames = { ...names, placeholders: new Map([...names.placeholders, [item as unknown as ZodLike, 'T']]) };
      out.push('#### Page', '', comments.declarations.get('Page') || 'Page wrapper.', '', 'Built by `pageSchema(item)`; `T` is the item record.', '');
      out.push(recordTable(fieldRows(shapeOf(page), '', () => '', pageNames, [])), '');
    }
    for (const [exportName, schema] of entries) {
      const name = exportName.replace(/Schema$/, '');
      out.push(`#### ${name}`, '');
      const description = comments.declarations.get(exportName);
      if (description) out.push(description, '');
      out.push(recordTable(fieldRows(shapeOf(schema as ZodLike), '', commentLookup(comments, exportName), names, [])), '');
    }
  }
  return out.join('\n');
}

function recordTable(rows: FieldRow[]): string {
  return table(
    ['Field', 'Type', 'Presence', 'Notes'],
    rows.map((row) => [code(row.field), row.type, row.presence, row.notes]),
  );
}

function enumsSection(names: Names, comments: SourceComments): string {
  const out = ['## Enums', '', 'packages/contracts/src/enums.ts, in source order.', ''];
  const order = comments.order.get(ENUMS_FILE) ?? [];
  const position = (name: string) => order.indexOf(`${name}Schema`);
  for (const [schema, name] of [...names.enums].sort((a, b) => position(a[1]) - position(b[1]))) {
    out.push(`### ${name}`, '');
    const description = comments.declarations.get(`${name}Schema`);
    if (description) out.push(description, '');
    out.push(enumValues(schema).map(code).join(', '), '');
  }
  const { UPLOAD_STEPS, UPLOAD_FAILED_STEP, CURATED_GENRES } = enums;
  out.push('### Upload steps', '', comments.declarations.get('UPLOAD_STEPS') ?? '', '');
  out.push(
    table(['stepName', 'progress'], [...UPLOAD_STEPS.map((step) => [step.stepName, String(step.progress)]), [UPLOAD_FAILED_STEP, 'null (state FAILED)']]),
    '',
  );
  out.push('### Curated genres', '', comments.declarations.get('CURATED_GENRES') ?? '', '', CURATED_GENRES.map(code).join(', '), '');
  return out.join('\n');
}

function gatewaySection(routes: readonly RouteContract[]): string {
  const audioMax = gatewayConfigShape.AUDIO_MAX_BYTES.parse(undefined);
  const perClient = gatewayConfigShape.RATE_LIMIT_CLIENT_PER_MINUTE.parse(undefined);
  const perUser = gatewayConfigShape.RATE_LIMIT_USER_PER_MINUTE.parse(undefined);
  const appPerUser = gatewayConfigShape.APP_QUOTA_PER_USER.parse(undefined);
  const appPerUserWindow = gatewayConfigShape.APP_QUOTA_PER_USER_WINDOW_SECONDS.parse(undefined);
  const appPerApp = gatewayConfigShape.APP_QUOTA_PER_APP.parse(undefined);
  const appPerAppWindow = gatewayConfigShape.APP_QUOTA_PER_APP_WINDOW_SECONDS.parse(undefined);
  const byPrefix = new Map<string, Map<string, string[]>>();
  for (const route of routes) {
    const prefix = `/${route.path.split('/')[1] ?? ''}`;
    const owners = byPrefix.get(prefix) ?? new Map<string, string[]>();
    owners.set(route.owner, [...(owners.get(route.owner) ?? []), route.id]);
    byPrefix.set(prefix, owners);
  }
  const prefixRows = [...byPrefix.entries()].flatMap(([prefix, owners]) =>
    [...owners.entries()].map(([owner, ids]) => [code(`/api${prefix}`), owner, [...new Set(ids)].join(', ')]),
  );
  const kinds = Object.keys(BODY_KINDS) as BodyKind[];
  const authRules = Object.keys(AUTH_RULES) as AuthRule[];
  const idsWith = (keep: (route: RouteContract) => boolean) => [...new Set(routes.filter(keep).map((route) => route.id))].join(', ') || '—';
  return [
    '## Gateway',
    '',
    'The gateway (gateway/src) is the only public entry. It looks each `/api/...` request up in the operation table, static segments winning over ' +
      'parameters (so `/users/me` is never `/users/{userId}`), forwards the path unchanged to the owner service, verifies the bearer token ' +
      '(signature, expiry, session and ban revocation) on every route, forwards the verified identity as ' +
      `${Object.values(IDENTITY_HEADERS).map(code).join(', ')} together with \`X-Request-Id\`, enforces the body and rate limits, passes raw ` +
      'bodies byte for byte, proxies websocket upgrades, and answers 404 ROUTE_NOT_FOUND, 405 METHOD_NOT_ALLOWED, 413, 429, 502, 503 and 504 ' +
      'itself. It also serves `/api/health`, `/api/openapi.json` (the services\u2019 OpenAPI documents merged) and `/api/docs`.',
    '',
    '### Routing',
    '',
    'Owner service of each first path segment, from the `owner` of each operation:',
    '',
    table(['Prefix', 'Owner', 'Operations'], prefixRows),
    '',
    '### Body limits',
    '',
    `gateway/src/body-limit.ts, with the default audio limit \`AUDIO_MAX_BYTES\` = ${bytes(audioMax)}. A multipart body on an \`image\` or ` +
      '`upload` route streams through with that route\u2019s limit; every other body is read whole with the JSON limit. Past the limit: 413 ' +
      'PAYLOAD_TOO_LARGE.',
    '',
    table(
      ['Body', 'Meaning', 'Limit', 'Operations'],
      kinds.map((kind) => [kind, BODY_KINDS[kind], bytes(bodyLimitFor(kind, audioMax)), idsWith((route) => route.bodyKind === kind)]),
    ),
    '',
    '### Auth rules',
    '',
    'The `auth` of each operation, applied by the gateway (gateway/src/auth.ts, gate.ts) before the request reaches its owner.',
    '',
    table(
      ['Auth', 'Meaning', 'Operations'],
      authRules.map((rule) => [rule, AUTH_RULES[rule], idsWith((route) => route.auth === rule)]),
    ),
    '',
    '### Rate limits',
    '',
    `Per client address ${perClient} requests a minute and per signed-in user ${perUser} (gateway configuration ` +
      '`RATE_LIMIT_CLIENT_PER_MINUTE`, `RATE_LIMIT_USER_PER_MINUTE`); past them 429 RATE_LIMITED with `Retry-After`. Login and password ' +
      'recovery have their own limits (R13).',
    '',
    `App tokens also have quotas: ${appPerUser} requests per ${appPerUserWindow} s for one app acting for one user, ${appPerApp} per ` +
      `${appPerAppWindow} s for one app across its users (\`APP_QUOTA_*\`); every app-token answer carries \`RateLimit-Policy\` and ` +
      '`RateLimit` (draft-ietf-httpapi-ratelimit-headers), past a quota 429 RATE_LIMITED with `Retry-After` ' +
      '([developer-platform.md](developer-platform.md#quotas)).',
    '',
  ].join('\n');
}

function websocketSection(): string {
  return [
    '## Websocket',
    '',
    'WS-1 is a STOMP 1.2 endpoint owned by notification: a raw WebSocket on `/api/ws` and SockJS on `/api/ws/**` (`/api/ws/info` and the ' +
      'transports). The handshake is public; the CONNECT frame carries `Authorization: Bearer <accessToken>`, `accept-version` and ' +
      '`heart-beat` (10000,10000). A refused CONNECT gets an ERROR frame whose `message` is `<CODE>: text` (UNAUTHORIZED, ACCOUNT_BANNED, ' +
      'ACCOUNT_SUSPENDED, FORBIDDEN), then the socket closes. Clients only SUBSCRIBE:',
    '',
    table(
      ['Id', 'Destination', 'Who', 'Messages'],
      [
        [
          'WS-2',
          code('/topic/track-status/{uploadId}'),
          'the uploader',
          '[UploadStatusMessage](#uploadstatusmessage) per processing step; on SUBSCRIBE the last status (kept 10 min), else an ' +
            'UPLOADING / 0 / "Waiting for server..." placeholder, is sent at once',
        ],
        [
          'WS-3',
          code('/user/queue/notifications'),
          'the recipient, all sessions',
          '[NotificationEvent](#notificationevent): new notifications and NOTIFICATIONS_READ (R15)',
        ],
        ['WS-4', code('/user/queue/messages'), 'both participants, all sessions', '[MessageEvent](#messageevent): MESSAGE_CREATED and MESSAGES_READ (R16)'],
      ],
    ),
    '',
  ].join('\n');
}

// ---------------------------------------------------------------------------------------------

function recordFiles(): string[] {
  const index = readFileSync(path.join(RECORDS_DIR, 'index.ts'), 'utf8');
  return [...index.matchAll(/from '\.\/([\w-]+)\.js'/g)].map((m) => path.join(RECORDS_DIR, `${m[1]}.ts`));
}

async function collectNames(): Promise<Names> {
  const records = new Map<ZodLike, string>();
  for (const file of recordFiles()) {
    const module = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
    for (const [exportName, value] of Object.entries(module)) {
      if (exportName.endsWith('Schema') && isZod(value) && def(value).type === 'object' && !records.has(value))
        records.set(value, exportName.replace(/Schema$/, ''));
    }
  }
  const enumMap = new Map<ZodLike, string>();
  for (const [exportName, value] of Object.entries(enums)) {
    if (exportName.endsWith('Schema') && isZod(value) && enumSource(value)) enumMap.set(value, exportName.replace(/Schema$/, ''));
  }
  // Date strings are plain strings to zod (so answers never fail on them); say what they hold.
  const placeholders = new Map<ZodLike, string>([
    [contracts.DateTimeSchema as unknown as ZodLike, 'string (ISO-8601 UTC date-time)'],
    [contracts.DateSchema as unknown as ZodLike, 'string (date `YYYY-MM-DD`)'],
  ]);
  return { records, enums: enumMap, placeholders };
}

/** docs/api.md as the code states it now. */
export async function renderApiDocs(): Promise<string> {
  const names = await collectNames();
  const comments = readComments([...recordFiles(), ENUMS_FILE]);
  const routes = contracts.ROUTES;
  const body = [
    conventionsSection(),
    operationsSection(routes),
    websocketSection(),
    errorsSection(),
    await recordsSection(names, comments),
    enumsSection(names, comments),
    gatewaySection(routes),
  ].join('\n');
  const headings = [...body.matchAll(/^(#{2,4}) (.+)$/gm)].map((m) => ({ level: m[1]!.length, text: m[2]! }));
  const seen = new Set<string>();
  for (const heading of headings) {
    const anchor = slug(heading.text);
    if (seen.has(anchor)) throw new Error(`docs/api.md would have two headings with the anchor #${anchor}`);
    seen.add(anchor);
  }
  for (const [, target] of body.matchAll(/\]\(#([^)]+)\)/g)) {
    if (!seen.has(target!)) throw new Error(`docs/api.md links to #${target} but has no such heading`);
  }
  const contents = headings.filter((h) => h.level === 2).map((h) => `- [${h.text}](#${slug(h.text)})`);
  return [
    '# HTTP API',
    '',
    '<!-- Generated by `pnpm docs:api` (scripts/generate-api-docs.ts) from packages/contracts, packages/errors and the gateway. Do not edit by hand. -->',
    '',
    'The public HTTP contract of the platform: every operation with its id (`AUTH-1`, `TRK-12`, …), the records, enums and error codes, and ' +
      'the gateway rules. Code and tests cite operations by id and business rules as R1–R18 ([rules.md](rules.md)).',
    '',
    ...contents,
    '',
    body,
  ]
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .replace(/\n*$/, '\n');
}

const isMain = process.argv[1] !== undefined && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href;
if (isMain) {
  const text = await renderApiDocs();
  if (process.argv.includes('--check')) {
    let current = '';
    try {
      current = readFileSync(API_DOCS_PATH, 'utf8');
    } catch {
      // missing counts as stale
    }
    if (current !== text) {
      console.error('docs/api.md is stale: run `pnpm docs:api`');
      process.exit(1);
    }
  } else {
    writeFileSync(API_DOCS_PATH, text);
    console.log(`wrote ${path.relative(process.cwd(), API_DOCS_PATH)}`);
  }
}
