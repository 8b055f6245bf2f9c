import type { FastifyReply, FastifyRequest } from 'fastify';
import { callerFrom, operation, requireCaller, type FastifyPluginAsyncZod } from '@msp/http';
import type { IdentityConfig } from '../../config.js';
import { clientAddress } from '../../http/client-address.js';
import { KNOWN_DEVICE_COOKIE, KNOWN_DEVICE_TTL_SECONDS } from './known-devices.repository.js';
import type { LoginService } from './login.service.js';
import type { ClientContext, IssuedTokens, SessionsService } from './sessions.service.js';

export const REFRESH_COOKIE = 'refreshToken';
const COOKIE_PATH = '/api/auth';

export function clientOf(request: FastifyRequest, deviceInfo?: ClientContext['deviceInfo']): ClientContext {
  const ua = request.headers['user-agent'];
  return { ip: clientAddress(request), userAgent: typeof ua === 'string' ? ua : '', deviceInfo, knownDevice: request.cookies[KNOWN_DEVICE_COOKIE] ?? null };
}

/**
 * Marks the client as a known device of the account it just proved (AUTH-1, AUTH-9): an HttpOnly
 * cookie on the auth paths only, so it travels with login and reset requests and nowhere else.
 */
export function rememberDevice(reply: FastifyReply, token: string | null, config: IdentityConfig): void {
  if (!token) return;
  reply.setCookie(KNOWN_DEVICE_COOKIE, token, {
    path: COOKIE_PATH,
    httpOnly: true,
    sameSite: 'lax',
    maxAge: KNOWN_DEVICE_TTL_SECONDS,
    secure: config.NODE_ENV === 'production',
  });
}

export function wantsBodyDelivery(request: FastifyRequest): boolean {
  const value = request.headers['x-refresh-token-delivery'];
  return typeof value === 'string' && value.trim().toLowerCase() === 'body';
}

/**
 * Sets the refresh cookie (docs/api.md "Conventions") and returns the Login response, with the refresh token in
 * the body only when the client asked for it with `X-Refresh-Token-Delivery: body`.
 */
export function deliverTokens(request: FastifyRequest, reply: FastifyReply, issued: IssuedTokens, config: IdentityConfig) {
  if (!issued.refreshToken) return issued.response;
  reply.setCookie(REFRESH_COOKIE, issued.refreshToken, {
    path: COOKIE_PATH,
    httpOnly: true,
    sameSite: 'lax',
    maxAge: config.REFRESH_TOKEN_TTL_SECONDS,
    secure: config.NODE_ENV === 'production',
  });
  if (!wantsBodyDelivery(request)) return issued.response;
  return { ...issued.response, refreshToken: issued.refreshToken, refreshExpiresIn: config.REFRESH_TOKEN_TTL_SECONDS };
}

function clearRefreshCookie(reply: FastifyReply, config: IdentityConfig): void {
  reply.setCookie(REFRESH_COOKIE, '', {
    path: COOKIE_PATH,
    httpOnly: true,
    sameSite: 'lax',
    maxAge: 0,
    secure: config.NODE_ENV === 'production',
  });
}

/** Body wins over the cookie (docs/api.md "Conventions"). */
function presentedRefreshToken(request: FastifyRequest, body: { refreshToken?: string | null } | null | undefined): string | null {
  return body?.refreshToken || request.cookies[REFRESH_COOKIE] || null;
}

/** AUTH-1…AUTH-4 and MOD-1, registered from their contract (packages/contracts/src/operations/identity/sessions.ts). */
export const sessionsModule: FastifyPluginAsyncZod<{ sessions: SessionsService; login: LoginService; config: IdentityConfig }> = async (
  app,
  { sessions, login, config },
) => {
  app.route({
    ...operation('AUTH-1'),
    handler: async (request, reply) => {
      const { email, password, deviceInfo } = request.body;
      const result = await login.loginLocal(email, password, clientOf(request, deviceInfo));
      if ('mfaRequired' in result) return result;
      const { issued, knownDevice } = result;
      const body = deliverTokens(request, reply, issued, config);
      rememberDevice(reply, knownDevice, config);
      return body;
    },
  });

  app.route({
    ...operation('AUTH-2'),
    handler: async (request, reply) => deliverTokens(request, reply, await sessions.refresh(presentedRefreshToken(request, request.body)), config),
  });

  app.route({
    ...operation('AUTH-3'),
    handler: async (request, reply) => {
      await sessions.logout(presentedRefreshToken(request, request.body), callerFrom(request)?.sessionId ?? null);
      clearRefreshCookie(reply, config);
      return { message: 'Logged out.' };
    },
  });

  app.route({
    ...operation('AUTH-4'),
    handler: async (request, reply) => {
      const caller = requireCaller(request);
      await sessions.revokeAllOf(caller.userId, 'logout-all');
      clearRefreshCookie(reply, config);
      return reply.code(204).send();
    },
  });

  app.route({
    ...operation('MOD-1'),
    handler: async (request) => {
      const { email, password, deviceInfo } = request.body;
      return login.loginAdmin(email, password, clientOf(request, deviceInfo));
    },
  });
};
