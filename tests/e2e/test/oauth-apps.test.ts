import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as oauth from 'oauth4webapi';
import { chromium, type Browser } from 'playwright-core';
import { waitFor } from '@msp/testing';
import type { buildApp as buildIdentity } from '@msp/identity';
import { Fleet } from './fleet.js';

/**
 * A third-party app against the whole fleet (docs/developer-platform.md): a real OAuth client
 * library (oauth4webapi) runs authorization code + PKCE through the gateway, calls routes with and
 * without their scope, refreshes, and is revoked by the user; a browser approves and denies on the
 * consent page.
 */
const fleet = new Fleet();
const PASSWORD = 'a long enough secret';
const REDIRECT = 'http://127.0.0.1:9/callback';
const insecure = { [oauth.allowInsecureRequests]: true };
let browser: Browser;
let as: oauth.AuthorizationServer;
let user: { id: number; accessToken: string };

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
  // The mailed link is exercised by identity.test.ts; here the address is marked verified directly.
  await identityApp().infra.prisma.userEmail.updateMany({ where: { userId }, data: { isVerified: true, verifiedAt: new Date() } });
  await identityApp().infra.prisma.user.update({ where: { id: userId }, data: { emailVerified: true } });
  const login = await fleet.fetch('/api/auth/login/local', json({ email, password: PASSWORD }));
  expect(login.status).toBe(200);
  return { id: userId, accessToken: ((await login.json()) as { accessToken: string }).accessToken };
}

async function registerApp(name: string): Promise<oauth.Client> {
  const res = await fleet.fetch('/api/apps', json({ name, redirectUris: [REDIRECT], confidential: false }, bearer(user.accessToken)));
  expect(res.status).toBe(201);
  const { clientId } = (await res.json()) as { clientId: string };
  return { client_id: clientId, token_endpoint_auth_method: 'none' };
}

async function authorizationUrl(client: oauth.Client, scope: string) {
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const url = new URL(as.authorization_endpoint!);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: client.client_id,
    redirect_uri: REDIRECT,
    scope,
    state,
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
  }).toString();
  return { url, verifier, state };
}

/** The consent form filled with plain HTTP: the hidden fields of the page, e-mail, password, approve. */
async function consentOverHttp(url: URL): Promise<URL> {
  const page = await fetch(url, { signal: AbortSignal.timeout(10_000) });
  expect(page.status).toBe(200);
  const html = await page.text();
  const fields = new URLSearchParams();
  for (const [, name, value] of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) {
    fields.set(
      name!,
      value!
        .replace(/&amp;/g, '&')
        .replace(/&quot;/g, '"')
        .replace(/&#39;/g, "'")
        .replace(/&lt;/g, '<')
        .replace(/&gt;/g, '>'),
    );
  }
  fields.set('email', 'ada@example.com');
  fields.set('password', PASSWORD);
  fields.set('decision', 'approve');
  const res = await fleet.fetch('/api/oauth/authorize', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: fields.toString(),
    redirect: 'manual',
  });
  expect(res.status).toBe(303);
  return new URL(res.headers.get('location')!);
}

async function tokensFor(client: oauth.Client, scope: string) {
  const { url, verifier, state } = await authorizationUrl(client, scope);
  const callback = await consentOverHttp(url);
  const params = oauth.validateAuthResponse(as, client, callback, state);
  const response = await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, REDIRECT, verifier, insecure);
  return oauth.processAuthorizationCodeResponse(as, client, response);
}

beforeAll(async () => {
  await fleet.start({}, {});
  const issuer = new URL(fleet.gatewayUrl);
  as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }));
  user = await verifiedUser('ada@example.com');
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await fleet.close();
}, 60_000);

describe('APP-1 APP-9 APP-10 APP-11 APP-12 APP-13 APP-16 USR-1 MSG-1 an app through the gateway', () => {
  it('discovers the server, completes code + PKCE, is held to its scopes, refreshes, and stops within 1 s of revocation', async () => {
    expect(as).toMatchObject({ issuer: fleet.gatewayUrl, code_challenge_methods_supported: ['S256'] });
    const client = await registerApp('Listening stats');
    const tokens = await tokensFor(client, 'read write');
    expect(tokens.scope).toBe('read write');

    const me = await fleet.fetch('/api/users/me', { headers: bearer(tokens.access_token) });
    expect(me.status).toBe(200);
    expect(((await me.json()) as { id: number }).id).toBe(user.id);
    const dms = await fleet.fetch('/api/conversations', { headers: bearer(tokens.access_token) });
    expect(dms.status).toBe(403);
    expect(((await dms.json()) as { code: string }).code).toBe('INSUFFICIENT_SCOPE');
    expect((await fleet.fetch('/api/apps', { headers: bearer(tokens.access_token) })).status).toBe(403);

    const messaging = await tokensFor(client, 'messages');
    expect((await fleet.fetch('/api/conversations', { headers: bearer(messaging.access_token) })).status).toBe(200);

    const refreshed = await oauth.processRefreshTokenResponse(
      as,
      client,
      await oauth.refreshTokenGrantRequest(as, client, oauth.None(), tokens.refresh_token!, insecure),
    );
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
    expect((await fleet.fetch('/api/users/me', { headers: bearer(refreshed.access_token) })).status).toBe(200);
    // The rotated refresh token presented again ends the whole family.
    const reuse = await oauth.refreshTokenGrantRequest(as, client, oauth.None(), tokens.refresh_token!, insecure);
    await expect(oauth.processRefreshTokenResponse(as, client, reuse)).rejects.toMatchObject({ error: 'invalid_grant' });
    await waitFor(async () => ((await fleet.fetch('/api/users/me', { headers: bearer(refreshed.access_token) })).status === 401 ? true : undefined), {
      timeoutMs: 1000,
      intervalMs: 50,
      message: 'the reused family still works',
    });

    const listed = await fleet.fetch('/api/users/me/authorized-apps', { headers: bearer(user.accessToken) });
    expect(((await listed.json()) as { content: Array<{ clientId: string; scopes: string[] }> }).content).toEqual([
      expect.objectContaining({ clientId: client.client_id, scopes: ['read', 'messages'] }),
    ]);
    const revoked = await fleet.fetch(`/api/users/me/authorized-apps/${client.client_id}`, { method: 'DELETE', headers: bearer(user.accessToken) });
    expect(revoked.status).toBe(204);
    const started = Date.now();
    await waitFor(async () => ((await fleet.fetch('/api/conversations', { headers: bearer(messaging.access_token) })).status === 401 ? true : undefined), {
      timeoutMs: 1000,
      intervalMs: 50,
      message: 'the app token still works 1 s after revocation',
    });
    expect(Date.now() - started).toBeLessThanOrEqual(1000);
    // The user's own session is untouched.
    expect((await fleet.fetch('/api/users/me', { headers: bearer(user.accessToken) })).status).toBe(200);
  });

  it('refuses a redirect_uri that does not match, and a plain PKCE challenge', async () => {
    const client = await registerApp('Strict');
    const { url } = await authorizationUrl(client, 'read');
    const wrong = new URL(url);
    wrong.searchParams.set('redirect_uri', `${REDIRECT}/other`);
    const page = await fetch(wrong, { redirect: 'manual' });
    expect(page.status).toBe(400);
    expect(page.headers.get('location')).toBeNull();
    const plain = new URL(url);
    plain.searchParams.set('code_challenge_method', 'plain');
    const refused = await fetch(plain, { redirect: 'manual' });
    expect(refused.status).toBe(302);
    expect(new URL(refused.headers.get('location')!).searchParams.get('error')).toBe('invalid_request');
  });
});

describe('APP-11 APP-12 the consent page in a browser', () => {
  it('approve returns a code to the app; deny returns access_denied', async () => {
    browser = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    });
    const client = await registerApp('Browser app');
    const page = await browser.newPage();
    // The app's redirect URI: caught in the browser, as the app's own page would receive it.
    let landed: URL | null = null;
    await page.route('http://127.0.0.1:9/**', async (route) => {
      landed = new URL(route.request().url());
      await route.fulfill({ status: 200, contentType: 'text/html', body: '<p>back at the app</p>' });
    });

    const approve = await authorizationUrl(client, 'read engage');
    await page.goto(approve.url.toString());
    expect(await page.textContent('#app-name')).toBe('Browser app');
    expect(await page.textContent('#scopes')).toContain('engage');
    await page.fill('#email', 'ada@example.com');
    await page.fill('#password', 'wrong password');
    await page.click('#approve');
    await page.waitForSelector('#error');
    await page.fill('#password', PASSWORD);
    await page.click('#approve');
    await page.waitForURL(/127\.0\.0\.1:9\/callback/);
    const approved = landed as URL | null;
    expect(approved?.searchParams.get('state')).toBe(approve.state);
    const params = oauth.validateAuthResponse(as, client, approved!, approve.state);
    const tokens = await oauth.processAuthorizationCodeResponse(
      as,
      client,
      await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, REDIRECT, approve.verifier, insecure),
    );
    expect(tokens.scope).toBe('read engage');

    landed = null;
    const deny = await authorizationUrl(client, 'read');
    await page.goto(deny.url.toString());
    await page.click('#deny');
    await page.waitForURL(/127\.0\.0\.1:9\/callback/);
    const denied = landed as URL | null;
    expect(denied?.searchParams.get('error')).toBe('access_denied');
    expect(denied?.searchParams.get('code')).toBeNull();
  });
});
