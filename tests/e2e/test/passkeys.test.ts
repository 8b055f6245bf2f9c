import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SMTPServer } from 'smtp-server';
import PostalMime from 'postal-mime';
import { chromium, type Browser, type Page } from 'playwright-core';
import { decodeBase32IgnorePadding } from '@oslojs/encoding';
import { generateHOTP } from '@oslojs/otp';
import { waitFor } from '@msp/testing';
import { Fleet } from './fleet.js';

/**
 * Passkeys end to end in headless Chromium with the DevTools virtual authenticator, on the
 * development page identity serves through the gateway (MFA-13). WebAuthn needs a secure context
 * and a domain as relying-party id, so the fleet is addressed as `localhost` (not 127.0.0.1): the
 * RP id is the host of WEB_BASE_URL (localhost) and the gateway's origin is an allowed origin.
 */
const fleet = new Fleet({ publicHost: 'localhost' });
const PASSWORD = 'a long enough secret';
const EMAIL = 'keys@example.com';
const mails: Array<{ to: string; subject: string; text: string }> = [];
let smtp: SMTPServer;
let browser: Browser;
/** A page of another origin (same RP id, other port): assertions made there must be refused. */
let elsewhere: Server;
/** The passkey the first test registered (private key included), for the second one's fresh browser. */
let savedCredentials: Array<Parameters<Awaited<ReturnType<typeof authenticatorOn>>['add']>[0]> = [];

type ApiResult = { status: number; body: Record<string, unknown> | null };
declare const window: {
  passkeys: {
    login(email: string, password: string): Promise<ApiResult>;
    register(name: string): Promise<ApiResult>;
    signIn(): Promise<ApiResult>;
    signOut(): Promise<ApiResult>;
  };
};
declare const navigator: { credentials: { get(options: unknown): Promise<{ toJSON(): unknown }> } };
declare const PublicKeyCredential: { parseRequestOptionsFromJSON(options: unknown): unknown };

const json = (body: unknown, headers: Record<string, string> = {}): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json', ...headers },
  body: JSON.stringify(body),
});
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

async function verifiedUser(email: string): Promise<string> {
  const before = mails.length;
  const reg = await fleet.fetch('/api/auth/register/local', json({ email, displayName: 'Key Holder', password: PASSWORD, dateOfBirth: '1990-02-03' }));
  expect(reg.status).toBe(201);
  const mail = await waitFor(() => mails.slice(before).find((m) => m.to === email && /verify/i.test(m.subject)), { timeoutMs: 10_000 });
  const token = new URL(/https?:\/\/\S+\?token=[\w-]+/.exec(mail.text)![0]).searchParams.get('token')!;
  expect((await fleet.fetch('/api/auth/verify-email', json({ token }))).status).toBe(200);
  const login = await fleet.fetch('/api/auth/login/local', json({ email, password: PASSWORD }));
  return ((await login.json()) as { accessToken: string }).accessToken;
}

/** A virtual platform authenticator (ctap2, internal, resident keys, user verification) on the page's tab. */
async function authenticatorOn(page: Page) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  return {
    credentials: async () => (await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials,
    add: async (credential: Awaited<ReturnType<typeof cdp.send<'WebAuthn.getCredentials'>>>['credentials'][number]) =>
      cdp.send('WebAuthn.addCredential', { authenticatorId, credential }),
  };
}

/** Runs `navigator.credentials.get` on the page for options obtained elsewhere. */
function assertOn(page: Page, options: unknown): Promise<unknown> {
  return page.evaluate(
    async (opts) => (await navigator.credentials.get({ publicKey: PublicKeyCredential.parseRequestOptionsFromJSON(opts) })).toJSON(),
    options,
  );
}

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
  elsewhere = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>elsewhere</title>'));
  await new Promise<void>((resolve) => elsewhere.listen(0, '127.0.0.1', resolve));
  await fleet.start({}, { identity: { SMTP_URL: `smtp://127.0.0.1:${(smtp.server.address() as { port: number }).port}`, MAIL_POLL_MS: '100' } });
  browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await fleet.close();
  await new Promise<void>((resolve) => elsewhere?.close(() => resolve()));
  await new Promise<void>((resolve) => smtp?.close(() => resolve()));
}, 60_000);

describe('MFA-6, MFA-7, MFA-11, MFA-12, MFA-13 passkeys in a browser', () => {
  it('registers a passkey, signs out, signs in with it; a challenge is single use and another origin is refused', async () => {
    await verifiedUser(EMAIL);
    const page = await browser.newPage();
    const authenticator = await authenticatorOn(page);
    const loaded = await page.goto(`${fleet.gatewayUrl}/api/dev/passkeys`);
    expect(loaded?.status()).toBe(200);

    const login = await page.evaluate(([email, password]) => window.passkeys.login(email!, password!), [EMAIL, PASSWORD]);
    expect(login.status).toBe(200);
    const registered = await page.evaluate(() => window.passkeys.register('Laptop'));
    expect(registered).toMatchObject({ status: 201, body: { name: 'Laptop', lastUsedAt: null } });
    expect(await authenticator.credentials()).toHaveLength(1);

    expect((await page.evaluate(() => window.passkeys.signOut())).status).toBe(200);
    const signedIn = await page.evaluate(() => window.passkeys.signIn());
    expect(signedIn.status).toBe(200);
    const session = signedIn.body as { accessToken: string; user: { username: string } };
    expect(session.user.username).toBe('key-holder');
    const list = await fleet.fetch('/api/users/me/passkeys', { headers: bearer(session.accessToken) });
    expect(await list.json()).toEqual([expect.objectContaining({ name: 'Laptop', lastUsedAt: expect.stringMatching(/Z$/) })]);

    // A challenge is used once: the same assertion presented again is refused.
    const options = await (await fleet.fetch('/api/auth/passkeys/options', json({}))).json();
    const assertion = await assertOn(page, options);
    const first = await fleet.fetch('/api/auth/passkeys/login', json({ credential: assertion }));
    expect(first.status).toBe(200);
    const replay = await fleet.fetch('/api/auth/passkeys/login', json({ credential: assertion }));
    expect(replay.status).toBe(401);
    expect(((await replay.json()) as { code: string }).code).toBe('PASSKEY_REJECTED');

    // The same passkey, used by a page of another origin (same RP id), is refused.
    const other = await browser.newPage();
    const copy = await authenticatorOn(other);
    for (const credential of await authenticator.credentials()) await copy.add(credential);
    await other.goto(`http://localhost:${(elsewhere.address() as AddressInfo).port}/`);
    const foreign = await assertOn(other, await (await fleet.fetch('/api/auth/passkeys/options', json({}))).json());
    const refused = await fleet.fetch('/api/auth/passkeys/login', json({ credential: foreign }));
    expect(refused.status).toBe(401);
    const error = (await refused.json()) as { code: string; message: string };
    expect(error.code).toBe('PASSKEY_REJECTED');
    expect(error.message).toMatch(/origin/i);
    await other.close();
    // Saved last: its signature counter must be the one the server saw last (a lower one is a clone).
    savedCredentials = await authenticator.credentials();
    await page.close();
  }, 60_000);
});

describe('MFA-4, MFA-5, MFA-9, MFA-10 a passkey as the second factor, and managing passkeys', () => {
  it('completes a two-factor login with a passkey instead of a code; renames and deletes it', async () => {
    expect(savedCredentials).toHaveLength(1);
    const token = (await (await fleet.fetch('/api/auth/login/local', json({ email: EMAIL, password: PASSWORD }))).json()) as { accessToken: string };
    const enrol = (await (await fleet.fetch('/api/users/me/mfa/totp', { method: 'POST', headers: bearer(token.accessToken) })).json()) as { secret: string };
    const code = generateHOTP(decodeBase32IgnorePadding(enrol.secret), BigInt(Math.floor(Date.now() / 30_000)), 6);
    expect((await fleet.fetch('/api/users/me/mfa/totp/confirm', json({ code }, bearer(token.accessToken)))).status).toBe(200);

    // A fresh browser profile (no known-device cookie) whose authenticator holds the passkey.
    const context = await browser.newContext();
    const page = await context.newPage();
    const authenticator = await authenticatorOn(page);
    for (const credential of savedCredentials) await authenticator.add(credential);
    await page.goto(`${fleet.gatewayUrl}/api/dev/passkeys`);
    const flow = await page.evaluate(
      async ([email, password]) => {
        const post = async (path: string, body: unknown) => {
          const res = await fetch(`/api${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
          return { status: res.status, body: (await res.json()) as Record<string, unknown> };
        };
        const step1 = await post('/auth/login/local', { email, password });
        const mfaToken = step1.body.mfaToken;
        const options = await post('/auth/passkeys/options', { mfaToken });
        const credential = await navigator.credentials.get({ publicKey: PublicKeyCredential.parseRequestOptionsFromJSON(options.body) });
        const done = await post('/auth/mfa', { mfaToken, passkey: credential.toJSON() });
        return { step1, options, done };
      },
      [EMAIL, PASSWORD],
    );
    await context.close();
    expect(flow.step1.body).toMatchObject({ mfaRequired: true, mfaToken: expect.stringMatching(/^mfa_/) });
    expect(flow.options.body.allowCredentials).toHaveLength(1);
    expect(flow.done).toMatchObject({ status: 200, body: { tokenType: 'Bearer' } });
    const accessToken = flow.done.body.accessToken as string;

    const [passkey] = (await (await fleet.fetch('/api/users/me/passkeys', { headers: bearer(accessToken) })).json()) as Array<{ id: number }>;
    const renamed = await fleet.fetch(`/api/users/me/passkeys/${passkey!.id}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json', ...bearer(accessToken) },
      body: JSON.stringify({ name: 'Work laptop' }),
    });
    expect(await renamed.json()).toMatchObject({ id: passkey!.id, name: 'Work laptop' });
    const overview = await fleet.fetch('/api/users/me/security', { headers: bearer(accessToken) });
    expect(await overview.json()).toMatchObject({ totp: { enabled: true }, passkeys: [{ id: passkey!.id, name: 'Work laptop' }], recoveryCodesLeft: 10 });

    const removed = await fleet.fetch(`/api/users/me/passkeys/${passkey!.id}`, { method: 'DELETE', headers: bearer(accessToken) });
    expect(removed.status).toBe(204);
    const again = await fleet.fetch(`/api/users/me/passkeys/${passkey!.id}`, { method: 'DELETE', headers: bearer(accessToken) });
    expect(again.status).toBe(404);
    expect(((await again.json()) as { code: string }).code).toBe('PASSKEY_NOT_FOUND');
  }, 60_000);
});
