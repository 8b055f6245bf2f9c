import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jetstream } from '@nats-io/jetstream';
import { AckPolicy } from '@nats-io/jetstream';
import { jetstreamManager } from '@nats-io/jetstream';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { startServiceTestEnv, waitFor, type ServiceTestEnv } from '@msp/testing';
import { buildApp, loadIdentityConfig } from '../src/app.js';
import { SigningKeyService } from '../src/modules/keys/keys.service.js';
import { SigningKeysRepository } from '../src/modules/keys/signing-keys.repository.js';

const migrations = fileURLToPath(new URL('../prisma/migrations', import.meta.url));

let env: ServiceTestEnv;
let app: Awaited<ReturnType<typeof buildApp>>;

const valid = {
  email: 'Alice@Example.com',
  displayName: 'Alice Smith',
  password: 'correct horse battery staple',
  dateOfBirth: '1995-05-17',
};

function register(body: unknown) {
  return app.inject({ method: 'POST', url: '/api/auth/register/local', payload: body as object });
}

beforeAll(async () => {
  env = await startServiceTestEnv('identity', migrations);
  app = await buildApp(loadIdentityConfig(env.env), { logger: false });
  await app.ready();
});

afterAll(async () => {
  await app?.close();
  await env?.close();
});

describe('AUTH-5 register with email and password', () => {
  it('creates the account, derives the username and publishes identity.user.registered.v1', async () => {
    const res = await register(valid);
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(body).toEqual({ message: expect.any(String), userId: expect.any(Number), username: 'alice-smith' });

    const jsm = await jetstreamManager(app.infra.nc);
    await jsm.consumers.add('IDENTITY', { durable_name: 'test-reader', ack_policy: AckPolicy.Explicit, filter_subject: 'identity.>' });
    const consumer = await jetstream(app.infra.nc).consumers.get('IDENTITY', 'test-reader');
    const msg = await waitFor(() => consumer.next({ expires: 1000 }).then((m) => m ?? undefined), { message: 'event not relayed' });
    const envelope = msg.json<{ type: string; producer: string; data: { userId: number; username: string } }>();
    expect(envelope).toMatchObject({ type: 'identity.user.registered.v1', producer: 'identity', data: { userId: body.userId, username: 'alice-smith' } });
    msg.ack();
  });

  it('answers 409 EMAIL_TAKEN for the same address in any case, and derives a free username', async () => {
    const again = await register({ ...valid, email: 'ALICE@example.COM' });
    expect(again.statusCode).toBe(409);
    expect(again.json().code).toBe('EMAIL_TAKEN');
    const twin = await register({ ...valid, email: 'alice2@example.com' });
    expect(twin.statusCode).toBe(201);
    expect(twin.json().username).toBe('alice-smith-2');
  });

  it('gives 50 parallel registrations with one displayName 50 × 201 and distinct derived usernames (R1)', async () => {
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => register({ ...valid, email: `crowd${i}@example.com`, displayName: 'Crowd Member' })),
    );
    expect(results.map((r) => r.statusCode)).toEqual(Array(50).fill(201));
    const names = results.map((r) => r.json().username as string);
    expect(new Set(names).size).toBe(50);
    expect(names).toContain('crowd-member');
    expect(names.every((n) => /^crowd-member(-\d+)?$/.test(n))).toBe(true);
  }, 60_000);

  it('answers 409 USERNAME_TAKEN for a chosen username in use', async () => {
    const res = await register({ ...valid, email: 'x@example.com', username: 'alice-smith' });
    expect(res.statusCode).toBe(409);
    expect(res.json().code).toBe('USERNAME_TAKEN');
  });

  it('refuses weak passwords with 400 WEAK_PASSWORD and the field', async () => {
    for (const password of ['short', 'password123', 'weakuser@example.com', 'x'.repeat(129)]) {
      const res = await register({ ...valid, email: 'weakuser@example.com', password });
      expect(res.statusCode, password).toBe(400);
      expect(res.json()).toMatchObject({ code: 'WEAK_PASSWORD', errors: [{ field: 'password' }] });
    }
  });

  it('refuses users under 13, reserved and malformed usernames', async () => {
    const young = await register({ ...valid, email: 'kid@example.com', dateOfBirth: new Date().toISOString().slice(0, 10) });
    expect(young.json()).toMatchObject({ code: 'VALIDATION_FAILED', errors: [{ field: 'dateOfBirth' }] });
    for (const username of ['me', 'ab', '12345', 'Has Space']) {
      const res = await register({ ...valid, email: `u${username.length}@example.com`, username });
      expect(res.statusCode, username).toBe(400);
    }
  });

  it('answers 400 with the failing fields for bad input and stores nothing', async () => {
    const before = await app.infra.prisma.user.count();
    const cases: Array<[unknown, string[]]> = [
      [{}, ['email', 'displayName', 'password', 'dateOfBirth']],
      [{ ...valid, email: 'not-an-email' }, ['email']],
      [{ ...valid, email: 12 }, ['email']],
      [{ ...valid, displayName: 'x'.repeat(1_000_000) }, ['displayName']],
      [{ ...valid, dateOfBirth: "1990-01-01'; DROP TABLE users; --" }, ['dateOfBirth']],
      [{ ...valid, deviceInfo: { deviceType: 'TOASTER', fingerPrint: 'a', deviceName: 'b' } }, ['deviceInfo.deviceType']],
    ];
    for (const [body, fields] of cases) {
      const res = await register(body);
      expect(res.statusCode).toBe(400);
      expect(res.json().code).toBe('VALIDATION_FAILED');
      expect(res.json().errors.map((e: { field: string }) => e.field)).toEqual(expect.arrayContaining(fields));
    }
    const malformed = await app.inject({
      method: 'POST',
      url: '/api/auth/register/local',
      headers: { 'content-type': 'application/json' },
      payload: '{"email":',
    });
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json().code).toBe('MALFORMED_REQUEST');
    expect(await app.infra.prisma.user.count()).toBe(before);
  });

  it('accepts unicode display names and derives an ASCII username', async () => {
    const res = await register({ ...valid, email: 'bjork@example.com', displayName: 'Björk Guðmundsdóttir 🎵' });
    expect(res.statusCode).toBe(201);
    expect(res.json().username).toMatch(/^bjork-gu/);
  });
});

describe('AUTH-15 check email or profile URL availability', () => {
  it('reports taken e-mails and usernames, and free ones', async () => {
    const taken = await app.inject({ method: 'POST', url: '/api/auth/check-user', payload: { email: 'alice@example.com' } });
    expect(taken.json()).toEqual({ isAvailable: false, message: expect.any(String), errorField: 'email' });
    expect(taken.headers.deprecation).toBe('true');
    const name = await app.inject({ method: 'POST', url: '/api/auth/check-user', payload: { username: 'alice-smith' } });
    expect(name.json().errorField).toBe('username');
    const free = await app.inject({ method: 'POST', url: '/api/auth/check-user', payload: { email: 'new@example.com', username: 'newbie' } });
    expect(free.json()).toEqual({ isAvailable: true, message: expect.any(String), errorField: null });
    const none = await app.inject({ method: 'POST', url: '/api/auth/check-user', payload: {} });
    expect(none.statusCode).toBe(400);
  });
});

describe('JWKS and signing keys', () => {
  it('publishes the active key and verifies tokens it signs; a rotated-in key keeps old tokens valid', async () => {
    const address = await app.listen({ port: 0, host: '127.0.0.1' });
    const keys = new SigningKeyService(new SigningKeysRepository(app.infra.prisma));
    const payload = (sub: string) => ({ sub, username: 'k', role: 'LISTENER' as const, tier: 'FREE' as const, sid: 's', jti: sub });
    const old = await keys.sign(payload('1'), 60, 'msp-identity');
    await keys.rotate();
    const fresh = await keys.sign(payload('2'), 60, 'msp-identity');
    const jwks = createRemoteJWKSet(new URL(`${address}/.well-known/jwks.json`));
    expect((await jwtVerify(old, jwks)).payload.sub).toBe('1');
    expect((await jwtVerify(fresh, jwks)).payload.sub).toBe('2');
    const doc = (await (await fetch(`${address}/.well-known/jwks.json`)).json()) as { keys: unknown[] };
    expect(doc.keys).toHaveLength(2);
    expect(JSON.stringify(doc)).not.toContain('"d"');
  });
});
