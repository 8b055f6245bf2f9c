import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateHOTP } from '@oslojs/otp';
import { decodeTotpSecret, matchTotpStep } from '../src/modules/mfa/mfa.crypto.js';
import { hashSecret } from '../src/modules/sessions/secrets.js';
import { login, PASSWORD, startIdentity, verifiedUser, type Harness } from './helpers.js';

let h: Harness;

beforeAll(async () => {
  h = await startIdentity('identity_mfa');
});

afterAll(async () => {
  await h?.close();
});

type Headers = Record<string, string>;

/**
 * An authenticator app for one secret: each call gives the code of the next time step not used yet
 * (the current one ± 1 step is accepted), as a user would type successive codes.
 */
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
    /** The code of the step used last (a replay). */
    last: () => generateHOTP(secret, last, 6),
  };
}

/** A verified user with TOTP on: their authenticator, recovery codes and bearer headers. */
async function userWithTotp(email: string) {
  const user = await verifiedUser(h, email);
  const enrol = await h.app.inject({ method: 'POST', url: '/api/users/me/mfa/totp', headers: user.headers });
  expect(enrol.statusCode).toBe(200);
  const app = authenticator(enrol.json().secret);
  const confirm = await h.app.inject({ method: 'POST', url: '/api/users/me/mfa/totp/confirm', headers: user.headers, payload: { code: app.next() } });
  expect(confirm.statusCode).toBe(200);
  return { ...user, app, recoveryCodes: confirm.json().recoveryCodes as string[] };
}

function passwordStep(email: string, headers: Headers = {}) {
  return h.app.inject({
    method: 'POST',
    url: '/api/auth/login/local',
    headers: { 'x-forwarded-for': '10.9.0.1', ...headers },
    payload: { email, password: PASSWORD },
  });
}

function secondStep(payload: Record<string, unknown>, headers: Headers = {}) {
  return h.app.inject({ method: 'POST', url: '/api/auth/mfa', headers: { 'x-refresh-token-delivery': 'body', ...headers }, payload });
}

async function mfaToken(email: string, headers: Headers = {}): Promise<string> {
  const res = await passwordStep(email, headers);
  expect(res.statusCode).toBe(200);
  expect(res.json()).toEqual({ mfaRequired: true, mfaToken: expect.stringMatching(/^mfa_[\w-]{43}$/) });
  return res.json().mfaToken;
}

describe('MFA-1 MFA-2 MFA-5 TOTP enrolment and the security overview', () => {
  it('enrols: a pending secret, confirmed by a first code, answers ten recovery codes once', async () => {
    const user = await verifiedUser(h, 'enrol@example.com');
    const noPending = await h.app.inject({ method: 'POST', url: '/api/users/me/mfa/totp/confirm', headers: user.headers, payload: { code: '123456' } });
    expect(noPending.statusCode).toBe(409);
    expect(noPending.json().code).toBe('MFA_NOT_PENDING');

    const enrol = await h.app.inject({ method: 'POST', url: '/api/users/me/mfa/totp', headers: user.headers });
    expect(enrol.statusCode).toBe(200);
    const { secret, otpauthUri } = enrol.json();
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(otpauthUri).toMatch(/^otpauth:\/\/totp\/Music%20Platform:enrol%40example\.com\?/);
    expect(otpauthUri).toContain(`secret=${secret}`);

    const pending = await h.app.inject({ method: 'GET', url: '/api/users/me/security', headers: user.headers });
    expect(pending.json()).toEqual({ totp: { enabled: false, enabledAt: null }, passkeys: [], recoveryCodesLeft: 0 });

    const wrong = await h.app.inject({ method: 'POST', url: '/api/users/me/mfa/totp/confirm', headers: user.headers, payload: { code: '000000' } });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json().code).toBe('INVALID_MFA_CODE');

    const app = authenticator(secret);
    const confirm = await h.app.inject({ method: 'POST', url: '/api/users/me/mfa/totp/confirm', headers: user.headers, payload: { code: app.next() } });
    expect(confirm.statusCode).toBe(200);
    const codes = confirm.json().recoveryCodes as string[];
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);
    for (const code of codes) expect(code).toMatch(/^[a-z2-7]{4}-[a-z2-7]{4}-[a-z2-7]{4}-[a-z2-7]{4}$/);

    // Stored hashed and encrypted: neither the codes nor the secret are in the database.
    const prisma = h.app.infra.prisma;
    const stored = await prisma.recoveryCode.findMany({ where: { userId: user.userId }, select: { codeHash: true } });
    expect(stored).toHaveLength(10);
    expect(stored.map((r) => r.codeHash)).not.toContain(codes[0]);
    const factor = await prisma.totpFactor.findUniqueOrThrow({ where: { userId: user.userId }, select: { secret: true } });
    expect(factor.secret).toMatch(/^v1\./);
    expect(factor.secret).not.toContain(secret);

    const overview = await h.app.inject({ method: 'GET', url: '/api/users/me/security', headers: user.headers });
    expect(overview.json()).toMatchObject({ totp: { enabled: true, enabledAt: expect.stringMatching(/Z$/) }, passkeys: [], recoveryCodesLeft: 10 });

    const again = await h.app.inject({ method: 'POST', url: '/api/users/me/mfa/totp', headers: user.headers });
    expect(again.statusCode).toBe(409);
    expect(again.json().code).toBe('MFA_ALREADY_ENABLED');
    const confirmAgain = await h.app.inject({ method: 'POST', url: '/api/users/me/mfa/totp/confirm', headers: user.headers, payload: { code: app.next() } });
    expect(confirmAgain.json().code).toBe('MFA_ALREADY_ENABLED');
  });

  it('needs a bearer token', async () => {
    const res = await h.app.inject({ method: 'GET', url: '/api/users/me/security' });
    expect(res.statusCode).toBe(401);
  });
});

describe('AUTH-1 MFA-4 login with two-factor sign-in', () => {
  it('answers {mfaRequired, mfaToken} without tokens or cookies; MFA-4 with a code completes it once', async () => {
    const user = await userWithTotp('two@example.com');
    const step1 = await passwordStep('two@example.com');
    expect(step1.headers['set-cookie']).toBeUndefined();
    const token = step1.json().mfaToken as string;

    const code = user.app.next();
    const done = await secondStep({ mfaToken: token, code });
    expect(done.statusCode).toBe(200);
    expect(done.json()).toMatchObject({ tokenType: 'Bearer', expiresIn: 1800, user: { id: user.userId }, refreshToken: expect.any(String) });
    const cookies = done.cookies.map((c) => c.name).sort();
    expect(cookies).toEqual(['knownDevice', 'refreshToken']);

    // The mfaToken is single use.
    const reused = await secondStep({ mfaToken: token, code: user.app.next() });
    expect(reused.statusCode).toBe(401);
    expect(reused.json().code).toBe('INVALID_MFA_TOKEN');

    // A code is accepted once: the same code again, inside its window, is refused.
    const replay = await secondStep({ mfaToken: await mfaToken('two@example.com'), code });
    expect(replay.statusCode).toBe(400);
    expect(replay.json().code).toBe('INVALID_MFA_CODE');
  });

  it('lets a device that completed the second step skip it; other devices still need it', async () => {
    const user = await userWithTotp('device@example.com');
    const done = await secondStep({ mfaToken: await mfaToken('device@example.com'), code: user.app.next() });
    const device = done.cookies.find((c) => c.name === 'knownDevice')!.value;
    const known = await passwordStep('device@example.com', { cookie: `knownDevice=${device}` });
    expect(known.statusCode).toBe(200);
    expect(known.json().accessToken).toEqual(expect.any(String));
    const other = await passwordStep('device@example.com');
    expect(other.json().mfaRequired).toBe(true);
  });

  it('accepts a recovery code once', async () => {
    const user = await userWithTotp('recover@example.com');
    const [code] = user.recoveryCodes;
    const first = await secondStep({ mfaToken: await mfaToken('recover@example.com'), recoveryCode: code!.toUpperCase() });
    expect(first.statusCode).toBe(200);
    const second = await secondStep({ mfaToken: await mfaToken('recover@example.com'), recoveryCode: code });
    expect(second.statusCode).toBe(400);
    expect(second.json().code).toBe('INVALID_MFA_CODE');
    const overview = await h.app.inject({ method: 'GET', url: '/api/users/me/security', headers: user.headers });
    expect(overview.json().recoveryCodesLeft).toBe(9);
  });

  it('locks the second step after 5 wrong codes with 429 and Retry-After, even for the right code', async () => {
    const user = await userWithTotp('locked@example.com');
    const token = await mfaToken('locked@example.com');
    for (let i = 0; i < 5; i += 1) {
      const res = await secondStep({ mfaToken: token, code: String(100000 + i) });
      expect(res.statusCode).toBe(400);
      expect(res.json().code).toBe('INVALID_MFA_CODE');
    }
    const locked = await secondStep({ mfaToken: token, code: user.app.next() });
    expect(locked.statusCode).toBe(429);
    expect(locked.json().code).toBe('RATE_LIMITED');
    expect(Number(locked.headers['retry-after'])).toBeGreaterThanOrEqual(29);
  });

  it('refuses garbled, expired and other clients’ mfa tokens with 401 INVALID_MFA_TOKEN, and bad bodies with 400', async () => {
    const user = await userWithTotp('tokens@example.com');
    const garbled = await secondStep({ mfaToken: 'mfa_not-a-real-token', code: '123456' });
    expect(garbled.statusCode).toBe(401);
    expect(garbled.json().code).toBe('INVALID_MFA_TOKEN');
    const foreign = await secondStep({ mfaToken: 'eyJhbGciOi.nonsense', code: '123456' });
    expect(foreign.json().code).toBe('INVALID_MFA_TOKEN');

    const token = await mfaToken('tokens@example.com');
    const otherClient = await secondStep({ mfaToken: token, code: user.app.next() }, { 'user-agent': 'another browser' });
    expect(otherClient.statusCode).toBe(401);

    await h.app.redis.pexpire(`auth:mfa-pending:${hashSecret(token)}`, 1);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const expired = await secondStep({ mfaToken: token, code: user.app.next() });
    expect(expired.statusCode).toBe(401);
    expect(expired.json().code).toBe('INVALID_MFA_TOKEN');

    for (const payload of [{}, { mfaToken: token }, { mfaToken: token, code: '123456', recoveryCode: 'abcd' }, { mfaToken: 42, code: '123456' }]) {
      const res = await secondStep(payload);
      expect(res.statusCode).toBe(400);
      expect(res.json().code).toBe('VALIDATION_FAILED');
    }
  });
});

describe('MFA-3 turn TOTP off', () => {
  it('needs a current code or a recovery code; then login has one step again', async () => {
    const user = await userWithTotp('off@example.com');
    const wrong = await h.app.inject({ method: 'DELETE', url: '/api/users/me/mfa/totp', headers: user.headers, payload: { code: '999999' } });
    expect(wrong.statusCode).toBe(400);
    const off = await h.app.inject({
      method: 'DELETE',
      url: '/api/users/me/mfa/totp',
      headers: user.headers,
      payload: { recoveryCode: user.recoveryCodes[3] },
    });
    expect(off.statusCode).toBe(200);
    const overview = await h.app.inject({ method: 'GET', url: '/api/users/me/security', headers: user.headers });
    expect(overview.json()).toEqual({ totp: { enabled: false, enabledAt: null }, passkeys: [], recoveryCodesLeft: 0 });
    const again = await h.app.inject({ method: 'DELETE', url: '/api/users/me/mfa/totp', headers: user.headers, payload: { code: '123456' } });
    expect(again.statusCode).toBe(409);
    expect(again.json().code).toBe('MFA_NOT_ENABLED');
    await login(h, 'off@example.com');
  });
});

describe('TOTP codes (RFC 6238 test vectors)', () => {
  it('matches the RFC 6238 SHA-1 vectors (last 6 digits) at their step and one step either side only', () => {
    const secret = new TextEncoder().encode('12345678901234567890');
    expect(matchTotpStep(secret, '287082', 59_000)).toBe(1n);
    expect(matchTotpStep(secret, '081804', 1_111_111_109_000)).toBe(37037036n);
    expect(matchTotpStep(secret, '081804', 1_111_111_109_000 + 30_000)).toBe(37037036n);
    expect(matchTotpStep(secret, '081804', 1_111_111_109_000 + 60_000)).toBeNull();
    expect(matchTotpStep(secret, '81804', 1_111_111_109_000)).toBeNull();
  });
});

describe('MFA-6…MFA-13 passkey inputs that never reach an authenticator', () => {
  it('refuses garbage credentials, unknown challenges, foreign passkeys and bad mfa tokens with 4xx', async () => {
    const user = await verifiedUser(h, 'keys@example.com');
    const options = await h.app.inject({ method: 'POST', url: '/api/users/me/passkeys/options', headers: user.headers });
    expect(options.statusCode).toBe(200);
    expect(options.json()).toMatchObject({
      challenge: expect.any(String),
      rp: { id: 'localhost', name: 'Music Platform' },
      user: { name: user.username },
      authenticatorSelection: { residentKey: 'required' },
    });

    const clientData = (challenge: string) =>
      Buffer.from(JSON.stringify({ type: 'webauthn.create', challenge, origin: 'http://localhost:3000' })).toString('base64url');
    const fake = (challenge: string) => ({
      id: 'AAAA',
      rawId: 'AAAA',
      type: 'public-key',
      response: { clientDataJSON: clientData(challenge), attestationObject: 'AAAA' },
    });
    const forged = await h.app.inject({
      method: 'POST',
      url: '/api/users/me/passkeys',
      headers: user.headers,
      payload: { credential: fake(options.json().challenge) },
    });
    expect(forged.statusCode).toBe(400);
    expect(forged.json().code).toBe('INVALID_PASSKEY_REGISTRATION');
    // The challenge went with the first attempt.
    const again = await h.app.inject({
      method: 'POST',
      url: '/api/users/me/passkeys',
      headers: user.headers,
      payload: { credential: fake(options.json().challenge) },
    });
    expect(again.json().message).toMatch(/challenge/);
    const shapeless = await h.app.inject({ method: 'POST', url: '/api/users/me/passkeys', headers: user.headers, payload: { credential: { id: 1 } } });
    expect(shapeless.statusCode).toBe(400);

    const assertion = {
      id: 'AAAA',
      rawId: 'AAAA',
      type: 'public-key',
      response: { clientDataJSON: clientData('nope'), authenticatorData: 'AAAA', signature: 'AAAA' },
    };
    const login = await h.app.inject({ method: 'POST', url: '/api/auth/passkeys/login', payload: { credential: assertion } });
    expect(login.statusCode).toBe(401);
    expect(login.json().code).toBe('PASSKEY_REJECTED');
    const signIn = await h.app.inject({ method: 'POST', url: '/api/auth/passkeys/options', payload: {} });
    expect(signIn.json()).toMatchObject({ challenge: expect.any(String), rpId: 'localhost', userVerification: 'required', allowCredentials: [] });
    const mfaOptions = await h.app.inject({ method: 'POST', url: '/api/auth/passkeys/options', payload: { mfaToken: 'mfa_unknown' } });
    expect(mfaOptions.statusCode).toBe(401);
    expect(mfaOptions.json().code).toBe('INVALID_MFA_TOKEN');

    const rename = await h.app.inject({ method: 'PATCH', url: '/api/users/me/passkeys/99', headers: user.headers, payload: { name: 'x' } });
    expect(rename.statusCode).toBe(404);
    expect(rename.json().code).toBe('PASSKEY_NOT_FOUND');
    const remove = await h.app.inject({ method: 'DELETE', url: '/api/users/me/passkeys/99', headers: user.headers });
    expect(remove.json().code).toBe('PASSKEY_NOT_FOUND');
    const list = await h.app.inject({ method: 'GET', url: '/api/users/me/passkeys', headers: user.headers });
    expect(list.json()).toEqual([]);
  });

  it('serves the development page with a policy that allows its own script only', async () => {
    const page = await h.app.inject({ method: 'GET', url: '/api/dev/passkeys' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.headers['content-security-policy']).toMatch(/script-src 'sha256-[\w+/=]+'/);
    expect(page.body).toContain('window.passkeys');
  });
});
