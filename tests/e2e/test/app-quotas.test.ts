import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as oauth from 'oauth4webapi';
import type { buildApp as buildIdentity } from '@msp/identity';
import { Fleet } from './fleet.js';

/**
 * App quotas and usage through the whole fleet (docs/developer-platform.md "Quotas", "Usage"): two
 * users of one app each have their own budget, every app-token answer carries the RateLimit
 * headers, a 429 carries Retry-After, and APP-17 shows the owner what the gateway counted.
 */
const fleet = new Fleet();
const PASSWORD = 'a long enough secret';
const REDIRECT = 'http://127.0.0.1:9/callback';
const insecure = { [oauth.allowInsecureRequests]: true };
const PER_USER = 4;
let as: oauth.AuthorizationServer;

const identityApp = () => fleet.apps.get('identity') as Awaited<ReturnType<typeof buildIdentity>>;
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const json = (body: unknown, headers: Record<string, string> = {}): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json', ...headers },
  body: JSON.stringify(body),
});

async function verifiedUser(email: string): Promise<{ id: number; accessToken: string }> {
  const reg = await fleet.fetch('/api/auth/register/local', json({ email, displayName: email.split('@')[0], password: PASSWORD, dateOfBirth: '1990-02-03' }));
  expect(reg.status).toBe(201);
  const { userId } = (await reg.json()) as { userId: number };
  await identityApp().infra.prisma.userEmail.updateMany({ where: { userId }, data: { isVerified: true, verifiedAt: new Date() } });
  await identityApp().infra.prisma.user.update({ where: { id: userId }, data: { emailVerified: true } });
  const login = await fleet.fetch('/api/auth/login/local', json({ email, password: PASSWORD }));
  expect(login.status).toBe(200);
  return { id: userId, accessToken: ((await login.json()) as { accessToken: string }).accessToken };
}

/** Code + PKCE through the consent form (plain HTTP), then the token endpoint: the app's access token for `email`. */
async function appTokenFor(client: oauth.Client, email: string): Promise<string> {
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const fields = new URLSearchParams({
    response_type: 'code',
    client_id: client.client_id,
    redirect_uri: REDIRECT,
    scope: 'read',
    state,
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    email,
    password: PASSWORD,
    decision: 'approve',
  });
  const res = await fleet.fetch('/api/oauth/authorize', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: fields.toString(),
    redirect: 'manual',
  });
  expect(res.status).toBe(303);
  await res.arrayBuffer();
  const params = oauth.validateAuthResponse(as, client, new URL(res.headers.get('location')!), state);
  const response = await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, REDIRECT, verifier, insecure);
  return (await oauth.processAuthorizationCodeResponse(as, client, response)).access_token;
}

function rateLimit(res: Response): Record<string, { r: number; t: number }> {
  const out: Record<string, { r: number; t: number }> = {};
  for (const item of (res.headers.get('ratelimit') ?? '').split(',')) {
    const match = /^\s*"(\w+)";r=(\d+);t=(\d+)\s*$/.exec(item);
    if (match) out[match[1]!] = { r: Number(match[2]), t: Number(match[3]) };
  }
  return out;
}

async function me(token: string): Promise<Response> {
  const res = await fleet.fetch('/api/users/me', { headers: bearer(token) });
  await res.arrayBuffer();
  return res;
}

beforeAll(async () => {
  await fleet.start({
    APP_QUOTA_PER_USER: String(PER_USER),
    APP_QUOTA_PER_USER_WINDOW_SECONDS: '3600',
    APP_QUOTA_PER_APP: '100',
    APP_QUOTA_PER_APP_WINDOW_SECONDS: '86400',
  });
  const issuer = new URL(fleet.gatewayUrl);
  as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }));
}, 120_000);

afterAll(async () => {
  await fleet.close();
}, 60_000);

describe('APP-17 USR-1 app quotas and usage through the gateway', () => {
  it('gives each user of an app their own budget, with RateLimit headers, 429 + Retry-After, and APP-17 counts', async () => {
    const ada = await verifiedUser('ada-quota@example.com');
    const bo = await verifiedUser('bo-quota@example.com');
    const created = await fleet.fetch('/api/apps', json({ name: 'Quota app', redirectUris: [REDIRECT], confidential: false }, bearer(ada.accessToken)));
    expect(created.status).toBe(201);
    const { id: appId, clientId } = (await created.json()) as { id: number; clientId: string };
    const client: oauth.Client = { client_id: clientId, token_endpoint_auth_method: 'none' };
    const adaApp = await appTokenFor(client, 'ada-quota@example.com');
    const boApp = await appTokenFor(client, 'bo-quota@example.com');

    for (let i = 1; i <= PER_USER; i++) {
      const res = await me(adaApp);
      expect(res.status).toBe(200);
      expect(res.headers.get('ratelimit-policy')).toBe(`"user";q=${PER_USER};w=3600, "app";q=100;w=86400`);
      const limit = rateLimit(res);
      expect(limit.user!.r).toBe(PER_USER - i);
      expect(limit.app!.r).toBe(100 - i);
      expect(limit.user!.t).toBeGreaterThan(3500);
      expect(limit.user!.t).toBeLessThanOrEqual(3600);
    }
    const over = await fleet.fetch('/api/users/me', { headers: bearer(adaApp) });
    expect(over.status).toBe(429);
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(3500);
    expect(rateLimit(over)).toMatchObject({ user: { r: 0 }, app: { r: 100 - PER_USER } });
    expect(await over.json()).toMatchObject({ status: 429, code: 'RATE_LIMITED', path: '/api/users/me' });

    // Bo's budget is his own.
    const boRes = await me(boApp);
    expect(boRes.status).toBe(200);
    expect(rateLimit(boRes)).toMatchObject({ user: { r: PER_USER - 1 }, app: { r: 100 - PER_USER - 1 } });

    // A user's own session is neither counted nor labelled.
    const own = await me(ada.accessToken);
    expect(own.status).toBe(200);
    expect(own.headers.get('ratelimit')).toBeNull();
    expect(own.headers.get('ratelimit-policy')).toBeNull();

    const usage = await fleet.fetch(`/api/apps/${appId}/usage`, { headers: bearer(ada.accessToken) });
    expect(usage.status).toBe(200);
    const body = (await usage.json()) as {
      totals: { requests: number; rateLimited: number };
      days: { date: string; requests: number; rateLimited: number }[];
      topRoutes: { operationId: string; requests: number }[];
    };
    expect(body.totals).toEqual({ requests: PER_USER + 2, rateLimited: 1 });
    expect(body.days).toHaveLength(30);
    expect(body.days.at(-1)).toEqual({ date: new Date().toISOString().slice(0, 10), requests: PER_USER + 2, rateLimited: 1 });
    expect(body.topRoutes).toEqual([{ operationId: 'USR-1', requests: PER_USER + 2 }]);

    // Only the owner sees it; a bad range is a 400 with field errors.
    const stranger = await fleet.fetch(`/api/apps/${appId}/usage`, { headers: bearer(bo.accessToken) });
    expect(stranger.status).toBe(404);
    await stranger.arrayBuffer();
    const bad = await fleet.fetch(`/api/apps/${appId}/usage?from=2026-13-01`, { headers: bearer(ada.accessToken) });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ code: 'VALIDATION_FAILED', errors: [expect.objectContaining({ field: expect.stringContaining('from') })] });
    // APP-17 is closed to app tokens.
    const viaApp = await fleet.fetch(`/api/apps/${appId}/usage`, { headers: bearer(boApp) });
    expect(viaApp.status).toBe(403);
    await viaApp.arrayBuffer();
  });
});
