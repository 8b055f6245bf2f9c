import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SMTPServer } from 'smtp-server';
import PostalMime from 'postal-mime';
import { decodeBase32IgnorePadding } from '@oslojs/encoding';
import { generateHOTP } from '@oslojs/otp';
import { waitFor } from '@msp/testing';
import { Fleet } from './fleet.js';

/** Two-factor sign-in through the gateway (docs/account-security.md): TOTP, recovery codes, lock-out. */
const fleet = new Fleet();
const PASSWORD = 'a long enough secret';
const mails: Array<{ to: string; subject: string; text: string }> = [];
let smtp: SMTPServer;

const json = (body: unknown, headers: Record<string, string> = {}): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json', ...headers },
  body: JSON.stringify(body),
});
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

async function verifiedUser(email: string): Promise<string> {
  const before = mails.length;
  const reg = await fleet.fetch('/api/auth/register/local', json({ email, displayName: email.split('@')[0], password: PASSWORD, dateOfBirth: '1990-02-03' }));
  expect(reg.status).toBe(201);
  const mail = await waitFor(() => mails.slice(before).find((m) => m.to === email && /verify/i.test(m.subject)), { timeoutMs: 10_000 });
  const token = new URL(/https?:\/\/\S+\?token=[\w-]+/.exec(mail.text)![0]).searchParams.get('token')!;
  expect((await fleet.fetch('/api/auth/verify-email', json({ token }))).status).toBe(200);
  const login = await fleet.fetch('/api/auth/login/local', json({ email, password: PASSWORD }));
  return ((await login.json()) as { accessToken: string }).accessToken;
}

/** The authenticator app: successive codes of time steps not used yet (the current one ± 1 is accepted). */
function authenticator(secretText: string) {
  const secret = decodeBase32IgnorePadding(secretText);
  let last = -1n;
  return () => {
    const now = BigInt(Math.floor(Date.now() / 30_000));
    for (let step = now - 1n; step <= now + 1n; step += 1n) {
      if (step > last) {
        last = step;
        return generateHOTP(secret, step, 6);
      }
    }
    throw new Error('no unused step left in the window');
  };
}

async function passwordStep(email: string): Promise<string> {
  const res = await fleet.fetch('/api/auth/login/local', json({ email, password: PASSWORD }));
  expect(res.status).toBe(200);
  expect(res.headers.get('set-cookie')).toBeNull();
  const body = (await res.json()) as { mfaRequired: boolean; mfaToken: string; accessToken?: string };
  expect(body.mfaRequired).toBe(true);
  expect(body.accessToken).toBeUndefined();
  return body.mfaToken;
}

const secondStep = (body: Record<string, unknown>) => fleet.fetch('/api/auth/mfa', json(body));

beforeAll(async () => {
  smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        void PostalMime.parse(Buffer.concat(chunks)).then((m) => {
          for (const r of session.envelope.rcptTo) mails.push({ to: r.address.toLowerCase(), subject: m.subject ?? '', text: m.text ?? '' });
          callback();
        });
      });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  await fleet.start({}, { identity: { SMTP_URL: `smtp://127.0.0.1:${(smtp.server.address() as { port: number }).port}`, MAIL_POLL_MS: '100' } });
}, 120_000);

afterAll(async () => {
  await fleet.close();
  await new Promise<void>((resolve) => smtp?.close(() => resolve()));
}, 60_000);

describe('MFA-1, MFA-2, AUTH-1, MFA-4, MFA-5 two-factor sign-in through the gateway', () => {
  it('enrols TOTP, then logs in with a code, a recovery code once, and locks after 5 wrong codes', async () => {
    const accessToken = await verifiedUser('totp@example.com');
    const enrol = await fleet.fetch('/api/users/me/mfa/totp', { method: 'POST', headers: bearer(accessToken) });
    expect(enrol.status).toBe(200);
    const { secret, otpauthUri } = (await enrol.json()) as { secret: string; otpauthUri: string };
    expect(otpauthUri).toMatch(/^otpauth:\/\/totp\//);
    const nextCode = authenticator(secret);
    const confirm = await fleet.fetch('/api/users/me/mfa/totp/confirm', json({ code: nextCode() }, bearer(accessToken)));
    expect(confirm.status).toBe(200);
    const { recoveryCodes } = (await confirm.json()) as { recoveryCodes: string[] };
    expect(recoveryCodes).toHaveLength(10);

    // Login: password, then a code; the usual Login response and refresh cookie.
    const withCode = await secondStep({ mfaToken: await passwordStep('totp@example.com'), code: nextCode() });
    expect(withCode.status).toBe(200);
    const login = (await withCode.json()) as { accessToken: string; user: { username: string } };
    expect(login.user.username).toBe('totp');
    expect(withCode.headers.get('set-cookie')).toMatch(/refreshToken=/);
    const me = await fleet.fetch('/api/users/me', { headers: bearer(login.accessToken) });
    expect(me.status).toBe(200);

    // A recovery code works once.
    const recovered = await secondStep({ mfaToken: await passwordStep('totp@example.com'), recoveryCode: recoveryCodes[0] });
    expect(recovered.status).toBe(200);
    const spent = await secondStep({ mfaToken: await passwordStep('totp@example.com'), recoveryCode: recoveryCodes[0] });
    expect(spent.status).toBe(400);
    expect(((await spent.json()) as { code: string }).code).toBe('INVALID_MFA_CODE');

    const overview = await fleet.fetch('/api/users/me/security', { headers: bearer(login.accessToken) });
    expect(await overview.json()).toMatchObject({ totp: { enabled: true }, passkeys: [], recoveryCodesLeft: 9 });

    // Five wrong codes lock the second step: 429 with Retry-After, even for a right code. The spent
    // recovery code above was the first.
    const mfaToken = await passwordStep('totp@example.com');
    for (let i = 0; i < 4; i += 1) {
      const wrong = await secondStep({ mfaToken, code: String(200000 + i) });
      expect(wrong.status).toBe(400);
    }
    const locked = await secondStep({ mfaToken, code: nextCode() });
    expect(locked.status).toBe(429);
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(((await locked.json()) as { code: string }).code).toBe('RATE_LIMITED');
  });

  it('answers garbled and unknown mfa tokens with an ErrorResponse, never a 500', async () => {
    const unknown = await secondStep({ mfaToken: 'mfa_unknown', code: '123456' });
    expect(unknown.status).toBe(401);
    expect(await unknown.json()).toMatchObject({ code: 'INVALID_MFA_TOKEN', path: '/api/auth/mfa' });
    const garbled = await fleet.fetch('/api/auth/mfa', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"mfaToken":' });
    expect(garbled.status).toBe(400);
    const missing = await secondStep({ code: '123456' });
    expect(missing.status).toBe(400);
    expect(((await missing.json()) as { code: string }).code).toBe('VALIDATION_FAILED');
  });
});

describe('MFA-3 turn TOTP off through the gateway (a DELETE with a JSON body)', () => {
  it('turns it off with a current code; the next login has one step', async () => {
    const accessToken = await verifiedUser('off@example.com');
    const enrol = await fleet.fetch('/api/users/me/mfa/totp', { method: 'POST', headers: bearer(accessToken) });
    const nextCode = authenticator(((await enrol.json()) as { secret: string }).secret);
    expect((await fleet.fetch('/api/users/me/mfa/totp/confirm', json({ code: nextCode() }, bearer(accessToken)))).status).toBe(200);
    const off = await fleet.fetch('/api/users/me/mfa/totp', { ...json({ code: nextCode() }, bearer(accessToken)), method: 'DELETE' });
    expect(off.status).toBe(200);
    const login = await fleet.fetch('/api/auth/login/local', json({ email: 'off@example.com', password: PASSWORD }));
    expect(((await login.json()) as { accessToken?: string }).accessToken).toEqual(expect.any(String));
  });
});
