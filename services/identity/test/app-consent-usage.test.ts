import { createHash, randomBytes } from 'node:crypto';
import { generateHOTP } from '@oslojs/otp';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APP_USAGE_KEYS, usageDay } from '@msp/contracts';
import { decodeTotpSecret } from '../src/modules/mfa/mfa.crypto.js';
import { usageRange } from '../src/modules/apps/apps.service.js';
import { PASSWORD, startIdentity, verifiedUser, type Harness } from './helpers.js';

/**
 * The consent page for an account with two-factor sign-in (APP-12: code or recovery code after the
 * password), and APP-17 (an app's usage as the gateway counted it).
 */
let h: Harness;

beforeAll(async () => {
  h = await startIdentity('identity_app_consent_usage');
}, 60_000);

afterAll(async () => {
  await h?.close();
});

const REDIRECT = 'https://app.example.com/callback';
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const HTML = 'text/html,application/xhtml+xml';
const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();

function authenticator(secretText: string) {
  const secret = decodeTotpSecret(secretText);
  let last = -1n;
  return {
    next(): string {
      const now = BigInt(Math.floor(Date.now() / 30_000));
      for (let step = now - 1n; step <= now + 1n; step += 1n) {
        if (step > last) {
          last = step;
          return generateHOTP(secret, step, 6);
        }
      }
      throw new Error('no unused step left in the window');
    },
  };
}

async function userWithTotp(email: string) {
  const user = await verifiedUser(h, email);
  const enrol = await h.app.inject({ method: 'POST', url: '/api/users/me/mfa/totp', headers: user.headers });
  expect(enrol.statusCode).toBe(200);
  const app = authenticator(enrol.json().secret);
  const confirm = await h.app.inject({ method: 'POST', url: '/api/users/me/mfa/totp/confirm', headers: user.headers, payload: { code: app.next() } });
  expect(confirm.statusCode).toBe(200);
  return { ...user, app, recoveryCodes: confirm.json().recoveryCodes as string[] };
}

async function createApp(headers: Record<string, string>) {
  const res = await h.app.inject({ method: 'POST', url: '/api/apps', headers, payload: { name: 'Stats', redirectUris: [REDIRECT], confidential: false } });
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as { id: number; clientId: string };
}

function authorizeParams(clientId: string) {
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  const params = {
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT,
    scope: 'read',
    state: 'st',
    code_challenge: challenge,
    code_challenge_method: 'S256',
  };
  return { verifier, params };
}

const consent = (fields: Record<string, string>, accept = HTML) =>
  h.app.inject({ method: 'POST', url: '/api/oauth/authorize', headers: { ...FORM, accept }, payload: form({ decision: 'approve', ...fields }) });

function mfaTokenOf(body: string): string {
  const match = /name="mfa_token" value="([^"]+)"/.exec(body);
  if (!match) throw new Error(`no mfa_token on the page: ${body}`);
  return match[1]!;
}

describe('APP-12 consent page for an account with two-factor sign-in', () => {
  it('asks for the code after the password; a wrong code shows the page again; the right one grants', async () => {
    const bob = await userWithTotp('bob-consent@example.com');
    const app = await createApp(bob.headers);
    const { verifier, params } = authorizeParams(app.clientId);

    const passwordStep = await consent({ ...params, email: 'bob-consent@example.com', password: PASSWORD });
    expect(passwordStep.statusCode).toBe(200);
    expect(passwordStep.headers.location).toBeUndefined();
    expect(passwordStep.body).toContain('id="mfa-prompt"');
    expect(passwordStep.body).toContain('name="code"');
    expect(passwordStep.body).toContain('name="recovery_code"');
    expect(passwordStep.body).not.toContain('name="password"');
    expect(passwordStep.body).toContain('name="code_challenge"');
    const mfaToken = mfaTokenOf(passwordStep.body);

    // A wrong code: the code page again (browser) or INVALID_MFA_CODE (other clients); the attempt stays.
    const wrong = await consent({ ...params, mfa_token: mfaToken, code: '000000' });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.body).toContain('id="error"');
    expect(mfaTokenOf(wrong.body)).toBe(mfaToken);
    const wrongApi = await consent({ ...params, mfa_token: mfaToken, code: '000001' }, 'application/json');
    expect(wrongApi.json()).toMatchObject({ status: 400, code: 'INVALID_MFA_CODE' });
    const empty = await consent({ ...params, mfa_token: mfaToken }, 'application/json');
    expect(empty.json()).toMatchObject({ status: 400, code: 'VALIDATION_FAILED', errors: [{ field: 'code' }] });

    const right = await consent({ ...params, mfa_token: mfaToken, code: bob.app.next() });
    expect(right.statusCode, right.body).toBe(303);
    const location = new URL(right.headers.location as string);
    expect(location.searchParams.get('state')).toBe('st');
    const code = location.searchParams.get('code')!;
    const tokens = await h.app.inject({
      method: 'POST',
      url: '/api/oauth/token',
      headers: FORM,
      payload: form({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT, client_id: app.clientId, code_verifier: verifier }),
    });
    expect(tokens.statusCode, tokens.body).toBe(200);
    expect(decodeJwt(tokens.json().access_token)).toMatchObject({ sub: String(bob.userId), azp: app.clientId });

    // The attempt's token is single use: back to the password page.
    const replay = await consent({ ...params, mfa_token: mfaToken, code: bob.app.next() }, 'application/json');
    expect(replay.json()).toMatchObject({ status: 401, code: 'INVALID_MFA_TOKEN' });
    const replayPage = await consent({ ...params, mfa_token: mfaToken, code: '123456' });
    expect(replayPage.statusCode).toBe(401);
    expect(replayPage.body).toContain('name="password"');
  });

  it('accepts a recovery code instead (once), and refuses an attempt from another client', async () => {
    const carol = await userWithTotp('carol-consent@example.com');
    const app = await createApp(carol.headers);
    const { verifier, params } = authorizeParams(app.clientId);
    const start = async () => mfaTokenOf((await consent({ ...params, email: 'carol-consent@example.com', password: PASSWORD })).body);

    const token = await start();
    const [recovery] = carol.recoveryCodes;
    const withRecovery = await consent({ ...params, mfa_token: token, recovery_code: recovery! });
    expect(withRecovery.statusCode, withRecovery.body).toBe(303);
    const location = new URL(withRecovery.headers.location as string);
    expect(location.searchParams.get('state')).toBe('st');
    const tokens = await h.app.inject({
      method: 'POST',
      url: '/api/oauth/token',
      headers: FORM,
      payload: form({
        grant_type: 'authorization_code',
        code: location.searchParams.get('code') ?? '',
        redirect_uri: REDIRECT,
        client_id: app.clientId,
        code_verifier: verifier,
      }),
    });
    expect(tokens.statusCode, tokens.body).toBe(200);
    expect(decodeJwt(tokens.json().access_token)).toMatchObject({ sub: String(carol.userId), azp: app.clientId });

    const again = await consent({ ...params, mfa_token: await start(), recovery_code: recovery! }, 'application/json');
    expect(again.json()).toMatchObject({ status: 400, code: 'INVALID_MFA_CODE' });

    // The attempt belongs to the browser that entered the password (same User-Agent, as MFA-4).
    const other = await h.app.inject({
      method: 'POST',
      url: '/api/oauth/authorize',
      headers: { ...FORM, accept: 'application/json', 'user-agent': 'another browser' },
      payload: form({ ...params, decision: 'approve', mfa_token: await start(), code: carol.app.next() }),
    });
    expect(other.json()).toMatchObject({ status: 401, code: 'INVALID_MFA_TOKEN' });
  });
});

describe('APP-17 app usage', () => {
  it("shows the owner the gateway's counts per day and the top operations; others get 404", async () => {
    const dana = await verifiedUser(h, 'dana-usage@example.com');
    const eve = await verifiedUser(h, 'eve-usage@example.com');
    const app = await createApp(dana.headers);
    const today = usageDay();
    const yesterday = usageDay(Date.now() - 86_400_000);
    await h.app.redis.hset(APP_USAGE_KEYS.day(app.clientId, today), { requests: '12', limited: '2', 'op:USR-1': '7', 'op:TRK-6': '4', 'op:ENG-1': '1' });
    await h.app.redis.hset(APP_USAGE_KEYS.day(app.clientId, yesterday), { requests: '5', 'op:TRK-6': '5' });

    const res = await h.app.inject({ method: 'GET', url: `/api/apps/${app.id}/usage?from=${yesterday}&to=${today}`, headers: dana.headers });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({
      appId: app.id,
      clientId: app.clientId,
      from: yesterday,
      to: today,
      totals: { requests: 17, rateLimited: 2 },
      days: [
        { date: yesterday, requests: 5, rateLimited: 0 },
        { date: today, requests: 12, rateLimited: 2 },
      ],
      topRoutes: [
        { operationId: 'TRK-6', requests: 9 },
        { operationId: 'USR-1', requests: 7 },
        { operationId: 'ENG-1', requests: 1 },
      ],
    });

    const defaults = await h.app.inject({ method: 'GET', url: `/api/apps/${app.id}/usage`, headers: dana.headers });
    expect(defaults.statusCode).toBe(200);
    expect(defaults.json().days).toHaveLength(30);
    expect(defaults.json()).toMatchObject({ to: today, totals: { requests: 17, rateLimited: 2 } });

    const stranger = await h.app.inject({ method: 'GET', url: `/api/apps/${app.id}/usage`, headers: eve.headers });
    expect(stranger.json()).toMatchObject({ status: 404, code: 'RESOURCE_NOT_FOUND' });
    const missing = await h.app.inject({ method: 'GET', url: `/api/apps/999999/usage`, headers: dana.headers });
    expect(missing.statusCode).toBe(404);
  });

  it('refuses bad ranges with field errors', async () => {
    const fay = await verifiedUser(h, 'fay-usage@example.com');
    const app = await createApp(fay.headers);
    const today = usageDay();
    const get = (query: string) => h.app.inject({ method: 'GET', url: `/api/apps/${app.id}/usage?${query}`, headers: fay.headers });
    const fieldsOf = async (query: string) => {
      const res = await get(query);
      expect(res.statusCode, query).toBe(400);
      expect(res.json().code).toBe('VALIDATION_FAILED');
      return (res.json().errors as { field: string }[]).map((e) => e.field.replace(/^querystring\./, ''));
    };
    expect(await fieldsOf('from=yesterday')).toContain('from');
    expect(await fieldsOf('to=2026-02-30')).toContain('to');
    expect(await fieldsOf(`from=${today}&to=${usageDay(Date.now() - 86_400_000)}`)).toEqual(['from']);
    expect(await fieldsOf(`to=${usageDay(Date.now() + 2 * 86_400_000)}`)).toEqual(['to']);
    expect(await fieldsOf(`from=${usageDay(Date.now() - 120 * 86_400_000)}`)).toEqual(['from']);
    expect(await fieldsOf(`to=${usageDay(Date.now() - 100 * 86_400_000)}`)).toEqual(['to']);
    expect((await get(`from=${today}&to=${today}`)).json().days).toHaveLength(1);
  });

  it('usageRange: inclusive UTC days, 90 at most', () => {
    const now = Date.parse('2026-11-27T10:00:00Z');
    expect(usageRange({}, now)).toHaveLength(30);
    expect(usageRange({ from: '2026-08-30' }, now)).toHaveLength(90);
    expect(() => usageRange({ from: '2026-08-29' }, now)).toThrow();
    expect(usageRange({ from: '2026-11-26', to: '2026-11-27' }, now)).toEqual(['2026-11-26', '2026-11-27']);
  });
});
