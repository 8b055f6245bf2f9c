import type { OperationDeclaration } from './operation-schema.js';
import { OPERATIONS, WEBSOCKET_ROUTES } from './operations/index.js';
import type { RouteContract } from './route-types.js';
import type { ServiceName } from './services.js';

/** The order of the contract's groups (docs/api.md lists them so); ids run in number order inside a group. */
const GROUP_ORDER = [
  'AUTH',
  'SEC',
  'MFA',
  'USR',
  'FOL',
  'BLK',
  'TRK',
  'MOD',
  'PLS',
  'ENG',
  'DSC',
  'MSG',
  'NOT',
  'SUB',
  'APP',
  'SND',
  'MEDIA',
  'EMBED',
  'INS',
  'ACC',
];

const ROW_PARTS = ['method', 'path', 'auth', 'owner', 'bodyKind', 'summary', 'deprecated', 'errors', 'scope'] as const;

function row(id: string, declared: OperationDeclaration): RouteContract {
  const parts = ROW_PARTS.filter((part) => declared[part] !== undefined).map((part) => [part, declared[part]]);
  return { id, ...Object.fromEntries(parts) } as RouteContract;
}

function contractOrder(a: RouteContract, b: RouteContract): number {
  const [groupA = '', numberA = ''] = a.id.split(/-(?=\d+$)/);
  const [groupB = '', numberB = ''] = b.id.split(/-(?=\d+$)/);
  return GROUP_ORDER.indexOf(groupA) - GROUP_ORDER.indexOf(groupB) || Number(numberA) - Number(numberB);
}

/**
 * Every public HTTP operation, in the contract's order; docs/api.md is generated from this table.
 * Each is declared once, with its input and output, in its service module's file under
 * operations/ (the websocket, WS-1, in operations/notification/realtime.ts). Paths are relative
 * to `/api`; parameter names are those of the contract so that handlers and tests can quote them verbatim.
 */
export const ROUTES: readonly RouteContract[] = [
  ...Object.entries(OPERATIONS as Readonly<Record<string, OperationDeclaration>>)
    .map(([id, declared]) => row(id, declared))
    .sort(contractOrder),
  ...WEBSOCKET_ROUTES,
];

/** First route with this id (WS-1 has two entries; the raw /ws one comes first). */
export function routeById(id: string): RouteContract | undefined {
  return ROUTES.find((route) => route.id === id);
}

export function routesOf(owner: ServiceName): RouteContract[] {
  return ROUTES.filter((route) => route.owner === owner);
}

/** `/users/{userId}/follow` → `/users/:userId/follow`; `/ws/**` → `/ws/*` (Fastify wildcard). */
export function toFastifyPath(path: string): string {
  return path.replace(/\{([^}]+)\}/g, ':$1').replace(/\/\*\*$/, '/*');
}
