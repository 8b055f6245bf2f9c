import FindMyWay from 'find-my-way';
import { ROUTES, type RouteContract, type ServiceName } from '@msp/contracts';

/** Methods the public API uses; HEAD is answered as GET. */
const API_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
type ApiMethod = (typeof API_METHODS)[number];

/** Paths the gateway answers itself; listed so that e.g. POST /api/health is a 405, not a 404. */
const GATEWAY_OWN_GET_PATHS = ['/health', '/openapi.json', '/docs', '/docs/', '/docs/*'];

export type RouteMatch =
  | { kind: 'route'; route: RouteContract }
  /** A gateway-owned path reached with a method it does not serve (the GET route would have won). */
  | { kind: 'gateway' }
  | { kind: 'method-not-allowed'; allow: string[] }
  | { kind: 'not-found' };

type Store = { route: RouteContract | null };

/**
 * The contract names parameters by their meaning (`/users/{userId}/…` next to `/users/{username}/…`),
 * but a radix router refuses two names at one position. The lookup only needs the shape, so each
 * parameter is renamed after its segment index; `/ws/**` (websocket) is proxied separately.
 */
export function normalisePath(path: string): string {
  return path
    .split('/')
    .map((segment, index) => (/^\{[^}]+\}$/.test(segment) ? `:s${index}` : segment))
    .join('/');
}

export interface RouteTable {
  match(method: string, url: string): RouteMatch;
}

export function buildRouteTable(routes: readonly RouteContract[] = ROUTES): RouteTable {
  // Static segments win over parameters in find-my-way, as docs/api.md "Gateway" states.
  const router = FindMyWay({ maxParamLength: 500, caseSensitive: true, ignoreTrailingSlash: false });
  const noop = () => undefined;
  for (const route of routes) {
    if (route.path === '/ws' || route.path.startsWith('/ws/')) continue;
    router.on(route.method, `/api${normalisePath(route.path)}`, noop, { route } satisfies Store);
  }
  for (const path of GATEWAY_OWN_GET_PATHS) {
    router.on('GET', `/api${path}`, noop, { route: null } satisfies Store);
  }

  const find = (method: ApiMethod, path: string): Store | undefined => {
    const found = router.find(method, path);
    return found ? (found.store as Store) : undefined;
  };

  return {
    match(method, url) {
      const path = url.split('?', 1)[0] ?? url;
      // The upstream URL is built with WHATWG URL, which resolves `..`, `%2e%2e` and backslashes.
      // A path that would change on the way must not pass: it was authorised as something else.
      if (!isCanonical(path)) return { kind: 'not-found' };
      const lookupMethod = method === 'HEAD' ? 'GET' : method;
      if ((API_METHODS as readonly string[]).includes(lookupMethod)) {
        const store = find(lookupMethod as ApiMethod, path);
        if (store) return store.route ? { kind: 'route', route: store.route } : { kind: 'gateway' };
      }
      const allow = API_METHODS.filter((candidate) => find(candidate, path) !== undefined);
      if (allow.length === 0) return { kind: 'not-found' };
      return { kind: 'method-not-allowed', allow: allow.includes('GET') ? [...allow, 'HEAD'] : [...allow] };
    },
  };
}

/**
 * Paths WHATWG URL keeps as they are, by their characters alone: only characters outside the path
 * percent-encode set (so nothing is encoded), no `%` (nothing decodes to a dot or slash), no
 * backslash, tab or newline (rewritten or dropped), and no `.` or `..` segment (resolved). Nearly
 * every request is one; the others are parsed (a WHATWG URL per request was 1.2 % of the fast
 * lane's CPU, docs/benchmarks/gateway.md "Stage 6").
 */
const PLAIN_PATH = /^\/(?!\/)[A-Za-z0-9\-._~!$&'()*+,;=:@/]*$/;
const DOT_SEGMENT = /\/\.\.?(?:\/|$)/;

/** Whether the path reaches the service as it is (WHATWG URL would not rewrite it). */
export function isCanonical(path: string): boolean {
  if (PLAIN_PATH.test(path)) return !DOT_SEGMENT.test(path);
  if (!path.startsWith('/') || path.startsWith('//')) return false;
  try {
    return new URL(path, 'http://gateway.invalid').pathname === path;
  } catch {
    return false;
  }
}

export type ServiceUrls = Record<ServiceName, string>;
