import type { RouteContract } from '../../route-types.js';

/**
 * WS-1, the STOMP websocket of notification's realtime module (services/notification/src/modules/realtime).
 * The handshake is public, the STOMP CONNECT frame carries the token; the gateway proxies upgrades
 * on /ws and SockJS traffic on /ws/** instead of routing them. One operation at two paths, speaking
 * frames rather than requests and answers: two rows and no schema.
 */
export const WEBSOCKET_ROUTES: readonly RouteContract[] = [
  {
    id: 'WS-1',
    method: 'GET',
    path: '/ws',
    auth: 'none',
    owner: 'notification',
    bodyKind: 'none',
    summary: 'STOMP websocket',
    // ERROR frame whose message starts with one of these codes, then the socket closes.
    errors: ['UNAUTHORIZED', 'ACCOUNT_BANNED', 'ACCOUNT_SUSPENDED', 'FORBIDDEN'],
  },
  { id: 'WS-1', method: 'GET', path: '/ws/**', auth: 'none', owner: 'notification', bodyKind: 'none', summary: 'STOMP websocket' },
];
