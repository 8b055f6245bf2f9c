import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '@msp/testing';
import { DEV_OIDC, identityEnvFor, startOidcStandIn, type OidcStandIn } from '../../../scripts/oidc-stand-in.ts';
import { Fleet } from './fleet.js';
import { signInAtStandIn } from './oidc-sign-in.js';

// Identity-provider login end to end against the OpenID provider `pnpm dev` runs in place of Google
// (oidc-provider): AUTH-10 redirects to it, the test plays the browser there, the stand-in sends the
// browser back to AUTH-11, identity exchanges the code (PKCE) and verifies the ID token (nonce, iss,
// aud) against the stand-in's JWKS.
const fleet = new Fleet();
const WEB = 'http://web.example.test';
let standIn: OidcStandIn;
let issuer = '';

function json(body: unknown): RequestInit {
  return { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) };
}

interface Login {
  accessToken: string;
  user: { id: number; displayName: string; isNewUser: boolean };
}

/** AUTH-10 → the stand-in's sign-in → AUTH-11; returns AUTH-11's redirect to the web app. */
async function authorizeAndReturn(email: string, options: { name?: string; action?: 'login' | 'cancel'; returnTo?: string } = {}): Promise<URL> {
  const start = await fleet.fetch(`/api/oauth2/authorization/google${options.returnTo ? `?returnTo=${encodeURIComponent(options.returnTo)}` : ''}`, {
    redirect: 'manual',
  });
  expect(start.status).toBe(302);
  const authorize = new URL(start.headers.get('location')!);
  expect(`${authorize.origin}${authorize.pathname}`).toBe(`${issuer}/auth`);
  const { redirect } = await signInAtStandIn(authorize.toString(), { email, ...options });
  expect(`${redirect.origin}${redirect.pathname}`).toBe(`${fleet.gatewayUrl}/api/login/oauth2/code/google`);
  expect(redirect.searchParams.get('state')).toBe(authorize.searchParams.get('state'));
  const callback = await fetch(redirect, { redirect: 'manual', signal: AbortSignal.timeout(10_000) });
  expect(callback.status).toBe(302);
  return new URL(callback.headers.get('location')!);
}

/** A client of its own at the stand-in (a mobile app, or the web app doing the code flow itself). */
async function codeFromStandIn(email: string, name?: string): Promise<string> {
  const url = new URL(`${issuer}/auth`);
  url.search = new URLSearchParams({
    client_id: DEV_OIDC.clientId,
    redirect_uri: `${WEB}/oauth/callback`,
    response_type: 'code',
    scope: 'openid email profile',
    state: randomBytes(8).toString('hex'),
  }).toString();
  const { redirect } = await signInAtStandIn(url.toString(), { email, name });
  expect(`${redirect.origin}${redirect.pathname}`).toBe(`${WEB}/oauth/callback`);
  return redirect.searchParams.get('code')!;
}

beforeAll(async () => {
  // The stand-in's address goes into identity's configuration before the fleet boots; the stand-in
  // itself starts once the gateway's callback URL (its redirect URI) is known.
  const port = await freePort();
  issuer = `http://127.0.0.1:${port}`;
  await fleet.start({}, { identity: { ...identityEnvFor(issuer), WEB_BASE_URL: WEB } });
  standIn = await startOidcStandIn({ port, redirectUris: [`${fleet.gatewayUrl}/api/login/oauth2/code/google`, `${WEB}/oauth/callback`] });
  expect(standIn.url).toBe(issuer);
}, 120_000);

afterAll(async () => {
  await standIn?.close();
  await fleet.close();
}, 60_000);

describe('AUTH-10…AUTH-13 against the local Google stand-in (oidc-provider)', () => {
  it('AUTH-10 sends the browser to the stand-in with PKCE, nonce and state; AUTH-11 hands back a one-time code; AUTH-12 logs in', async () => {
    const start = await fleet.fetch('/api/oauth2/authorization/google', { redirect: 'manual' });
    const authorize = new URL(start.headers.get('location')!);
    expect(Object.fromEntries(authorize.searchParams)).toMatchObject({
      client_id: DEV_OIDC.clientId,
      redirect_uri: `${fleet.gatewayUrl}/api/login/oauth2/code/google`,
      response_type: 'code',
      scope: 'openid email profile',
      code_challenge_method: 'S256',
      prompt: 'select_account',
    });
    // Random base64url values of at least 16 bytes; the challenge is a SHA-256 in base64url (S256).
    for (const param of ['state', 'nonce']) expect(authorize.searchParams.get(param)).toMatch(/^[A-Za-z0-9_-]{22,}$/);
    expect(authorize.searchParams.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const { page } = await signInAtStandIn(authorize.toString(), { email: 'first@example.com', action: 'cancel' });
    expect(page).toContain('<form method="post"');

    const back = await authorizeAndReturn('Noor@Example.com', { name: 'Noor Haddad', returnTo: '/library' });
    expect(`${back.origin}${back.pathname}`).toBe(`${WEB}/oauth/callback`);
    expect(back.searchParams.get('returnTo')).toBe('/library');
    const otc = back.searchParams.get('code')!;
    expect(otc).toMatch(/^otc_/);

    const res = await fleet.fetch('/api/auth/oauth/google', json({ authTokenDto: otc }));
    expect(res.status).toBe(200);
    const login = (await res.json()) as Login;
    expect(login.user).toMatchObject({ displayName: 'Noor Haddad', isNewUser: true });
    const me = await fleet.fetch('/api/users/me', { headers: { authorization: `Bearer ${login.accessToken}` } });
    expect(me.status).toBe(200);
    expect(await me.json()).toMatchObject({ id: login.user.id, email: 'noor@example.com' });
    // Single use.
    const reused = await fleet.fetch('/api/auth/oauth/google', json({ authTokenDto: otc }));
    expect(reused.status).toBe(400);
    expect(((await reused.json()) as { code: string }).code).toBe('INVALID_TOKEN');

    // The same address again: the same account, no longer new.
    const again = await authorizeAndReturn('noor@example.com');
    const second = (await (await fleet.fetch('/api/auth/oauth/google', json({ authTokenDto: again.searchParams.get('code') }))).json()) as Login;
    expect(second.user).toMatchObject({ id: login.user.id, isNewUser: false });
  });

  it('AUTH-11 turns a cancelled sign-in into ?error=INVALID_IDP_TOKEN', async () => {
    const back = await authorizeAndReturn('quit@example.com', { action: 'cancel', returnTo: '/upload' });
    expect(back.searchParams.get('error')).toBe('INVALID_IDP_TOKEN');
    expect(back.searchParams.get('returnTo')).toBe('/upload');
    expect(back.searchParams.get('code')).toBeNull();
  });

  it('AUTH-12 exchanges a provider authorization code; AUTH-13 takes a provider ID token', async () => {
    const code = await codeFromStandIn('ravi@example.com', 'Ravi');
    const exchanged = await fleet.fetch('/api/auth/oauth/google', json({ authTokenDto: code, redirectUri: `${WEB}/oauth/callback` }));
    expect(exchanged.status).toBe(200);
    const viaCode = (await exchanged.json()) as Login;
    expect(viaCode.user).toMatchObject({ displayName: 'Ravi', isNewUser: true });

    // A mobile client's own code exchange at the stand-in's token endpoint, then AUTH-13 with the ID token.
    const verifier = randomBytes(32).toString('base64url');
    const url = new URL(`${issuer}/auth`);
    url.search = new URLSearchParams({
      client_id: DEV_OIDC.clientId,
      redirect_uri: `${WEB}/oauth/callback`,
      response_type: 'code',
      scope: 'openid email profile',
      state: 's',
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
    }).toString();
    const { redirect } = await signInAtStandIn(url.toString(), { email: 'ravi@example.com' });
    const token = await fetch(`${issuer}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code: redirect.searchParams.get('code')!,
        redirect_uri: `${WEB}/oauth/callback`,
        client_id: DEV_OIDC.clientId,
        client_secret: DEV_OIDC.clientSecret,
        code_verifier: verifier,
      }),
    });
    expect(token.status).toBe(200);
    const { id_token: idToken } = (await token.json()) as { id_token: string };
    const res = await fleet.fetch('/api/auth/login/google', json({ accessToken: 'unused', idToken }));
    expect(res.status).toBe(200);
    expect(((await res.json()) as Login).user).toMatchObject({ id: viaCode.user.id, isNewUser: false });

    // A code is single use at the provider: identity answers 401 INVALID_IDP_TOKEN, not 5xx.
    const replay = await fleet.fetch('/api/auth/oauth/google', json({ authTokenDto: redirect.searchParams.get('code'), redirectUri: `${WEB}/oauth/callback` }));
    expect(replay.status).toBe(401);
    expect(((await replay.json()) as { code: string }).code).toBe('INVALID_IDP_TOKEN');
  });
});
