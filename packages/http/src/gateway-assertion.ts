import { createHmac, timingSafeEqual } from 'node:crypto';
import net from 'node:net';
import type { FastifyRequest } from 'fastify';

/**
 * What the gateway tells a service about a request, signed so that nothing else inside the network
 * can say it: the verified caller (X-User-*, X-Session-Id, X-Username), the client address it
 * resolved (X-Client-Ip) and the request id, bound to the method and URL, valid for a minute.
 *
 * `X-Gateway-Assertion: v1.<unix seconds>.<base64url HMAC-SHA256>`. The gateway holds one master
 * key (GATEWAY_SIGNING_KEY); each service holds only the key derived for it
 * (`deriveAssertionKey(master, service)`, GATEWAY_ASSERTION_KEY), so a compromised service cannot
 * forge a caller towards another service. A request without a valid assertion is anonymous, its
 * client address the socket's.
 */
export const ASSERTION_HEADER = 'x-gateway-assertion';
export const CLIENT_IP_HEADER = 'x-client-ip';
export const SIGNED_IDENTITY_HEADERS = ['x-user-id', 'x-user-role', 'x-user-tier', 'x-session-id', 'x-username'] as const;
const MAX_AGE_SECONDS = 60;

/** Development default; production requires the keys (packages/config, gateway config). */
export const DEV_GATEWAY_SIGNING_KEY = 'dev-only-gateway-signing-key-change-me';

export function deriveAssertionKey(masterKey: string, service: string): string {
  return createHmac('sha256', masterKey).update(`msp-gateway-assertion:${service}`).digest('base64url');
}

type HeaderBag = Record<string, string | string[] | undefined>;

function first(headers: HeaderBag, name: string): string {
  const value = headers[name];
  return (Array.isArray(value) ? value[0] : value) ?? '';
}

function canonical(seconds: string, method: string, url: string, requestId: string, headers: HeaderBag): string {
  return ['v1', seconds, method.toUpperCase(), url, requestId, first(headers, CLIENT_IP_HEADER), ...SIGNED_IDENTITY_HEADERS.map((h) => first(headers, h))].join(
    '\n',
  );
}

function mac(key: string, payload: string): string {
  return createHmac('sha256', key).update(payload).digest('base64url');
}

/** The header value the gateway sends with `headers` (which already hold the identity and client ip). */
export function signAssertion(key: string, input: { method: string; url: string; requestId: string; headers: HeaderBag; now?: number }): string {
  const seconds = String(Math.floor((input.now ?? Date.now()) / 1000));
  return `v1.${seconds}.${mac(key, canonical(seconds, input.method, input.url, input.requestId, input.headers))}`;
}

export function verifyAssertion(
  key: string,
  value: string | undefined,
  input: { method: string; url: string; requestId: string; headers: HeaderBag; now?: number },
): boolean {
  if (!value || value.length > 200) return false;
  const parts = value.split('.');
  if (parts.length !== 3 || parts[0] !== 'v1') return false;
  const seconds = Number(parts[1]);
  if (!Number.isSafeInteger(seconds) || Math.abs((input.now ?? Date.now()) / 1000 - seconds) > MAX_AGE_SECONDS) return false;
  const expected = Buffer.from(mac(key, canonical(parts[1]!, input.method, input.url, input.requestId, input.headers)));
  const given = Buffer.from(parts[2]!);
  return expected.length === given.length && timingSafeEqual(expected, given);
}

/**
 * In-process requests (`app.inject`, used by tests and by nothing reachable from a network) have no
 * TCP socket; they are trusted as the process that made them.
 */
export function cameOverNetwork(request: FastifyRequest): boolean {
  return request.raw.socket instanceof net.Socket;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The verified client address: the gateway's signed X-Client-Ip, else the socket peer. */
    clientAddress: string;
  }
}

/** The verified client address of a request (see FastifyRequest.clientAddress). */
export function clientAddress(request: FastifyRequest): string {
  return request.clientAddress || request.socket?.remoteAddress || '';
}
