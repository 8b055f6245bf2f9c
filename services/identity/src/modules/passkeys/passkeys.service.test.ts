import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import type { Redis } from 'ioredis';
import type { IdentityConfig } from '../../config.js';
import { MfaCrypto } from '../mfa/mfa.crypto.js';
import { MAX_PASSKEYS_PER_ACCOUNT, type PasskeyRow, type PasskeysStore } from './passkeys.repository.js';
import { PasskeysService } from './passkeys.service.js';

const config = { MFA_ISSUER: 'MSP', WEB_BASE_URL: 'https://web.test', PUBLIC_BASE_URL: 'https://api.test' } as IdentityConfig;
const crypto = new MfaCrypto(randomBytes(32));
const ann = { id: 7, username: 'ann', displayName: 'Ann' };

const clientData = (challenge: string) => Buffer.from(JSON.stringify({ type: 'webauthn.get', challenge, origin: 'https://web.test' })).toString('base64url');
const assertion = (challenge: string, credentialId = 'cred-1'): AuthenticationResponseJSON =>
  ({
    id: credentialId,
    rawId: credentialId,
    type: 'public-key',
    clientExtensionResults: {},
    response: { clientDataJSON: clientData(challenge), authenticatorData: '', signature: '' },
  }) as AuthenticationResponseJSON;

/** Passkeys by credential id in memory; challenges in a Map (GETDEL: single use). */
function setup(passkeys: PasskeyRow[] = []) {
  const challenges = new Map<string, string>();
  const rows = new Map(passkeys.map((p) => [p.id, p]));
  const repo: PasskeysStore = {
    list: () => Promise.resolve([]),
    credentialsOf: (userId) =>
      Promise.resolve([...rows.values()].filter((p) => p.userId === userId).map((p) => ({ credentialId: p.credentialId, transports: p.transports }))),
    count: (userId) => Promise.resolve([...rows.values()].filter((p) => p.userId === userId).length),
    byCredentialId: (id) => Promise.resolve([...rows.values()].find((p) => p.credentialId === id) ?? null),
    create: () => Promise.reject(new Error('not reached')),
    used: () => Promise.resolve(),
    rename: (userId, id, name) => {
      const row = rows.get(id);
      return Promise.resolve(row && row.userId === userId ? { id, name, createdAt: row.createdAt, lastUsedAt: row.lastUsedAt } : null);
    },
    remove: (userId, id) => Promise.resolve(rows.get(id)?.userId === userId && rows.delete(id)),
  };
  const redis = {
    set: (key: string, value: string) => {
      challenges.set(key, value);
      return Promise.resolve('OK');
    },
    getdel: (key: string) => {
      const value = challenges.get(key) ?? null;
      challenges.delete(key);
      return Promise.resolve(value);
    },
  } as unknown as Pick<Redis, 'set' | 'getdel'>;
  return { service: new PasskeysService(repo, crypto, redis, config), challenges };
}

const passkey = (id: number, userId: number): PasskeyRow => ({
  id,
  userId,
  credentialId: `cred-${id}`,
  publicKey: new Uint8Array(),
  counter: 0n,
  transports: ['internal'],
  name: `Passkey ${id}`,
  createdAt: new Date(),
  lastUsedAt: null,
});

describe('WebAuthn relying party', () => {
  it('is the web app: its host as RP id, its origin and the API origin as expected origins', () => {
    const { service } = setup();
    expect(service.rpId).toBe('web.test');
    expect(service.origins).toEqual(['https://web.test', 'https://api.test']);
  });
});

describe('MFA-6 / MFA-7 registration', () => {
  it('offers options excluding the registered passkeys, with a challenge kept for this user', async () => {
    const { service, challenges } = setup([passkey(1, ann.id), passkey(2, 8)]);
    const options = await service.registrationOptions(ann);
    expect(options.excludeCredentials?.map((c) => c.id)).toEqual(['cred-1']);
    expect(options.rp).toEqual({ name: 'MSP', id: 'web.test' });
    expect(JSON.parse(challenges.get(`auth:webauthn:${options.challenge}`)!)).toEqual({ purpose: 'register', userId: ann.id });
  });

  it(`refuses past ${MAX_PASSKEYS_PER_ACCOUNT} passkeys, and a response to a challenge not issued to this user`, async () => {
    const full = setup(Array.from({ length: MAX_PASSKEYS_PER_ACCOUNT }, (_, i) => passkey(i + 1, ann.id)));
    await expect(full.service.registrationOptions(ann)).rejects.toMatchObject({ code: 'INVALID_PASSKEY_REGISTRATION' });
    const { service } = setup();
    const options = await service.registrationOptions(ann);
    const response = { response: { clientDataJSON: clientData(options.challenge) } } as RegistrationResponseJSON;
    await expect(service.register(8, response, undefined)).rejects.toMatchObject({ code: 'INVALID_PASSKEY_REGISTRATION' });
    // The challenge was taken out: the right user cannot use it afterwards either.
    await expect(service.register(ann.id, response, undefined)).rejects.toMatchObject({ code: 'INVALID_PASSKEY_REGISTRATION' });
  });
});

describe('MFA-11 / MFA-12 / MFA-4 assertions', () => {
  it('refuses an unknown, used or other-purpose challenge with PASSKEY_REJECTED', async () => {
    const { service } = setup([passkey(1, ann.id)]);
    await expect(service.verifyAssertion(assertion('never-issued'), { purpose: 'login' })).rejects.toMatchObject({ code: 'PASSKEY_REJECTED' });
    const mfa = await service.authenticationOptions({ purpose: 'mfa', userId: ann.id, pendingKey: 'k' });
    expect(mfa.allowCredentials?.map((c) => c.id)).toEqual(['cred-1']);
    await expect(service.verifyAssertion(assertion(mfa.challenge), { purpose: 'login' })).rejects.toMatchObject({ code: 'PASSKEY_REJECTED' });
  });

  it("refuses another user's passkey for a second step, and an unregistered one", async () => {
    const { service } = setup([passkey(1, ann.id), passkey(2, 8)]);
    const scope = { purpose: 'mfa' as const, userId: ann.id, pendingKey: 'k' };
    const first = await service.authenticationOptions(scope);
    await expect(service.verifyAssertion(assertion(first.challenge, 'cred-2'), scope)).rejects.toMatchObject({ code: 'PASSKEY_REJECTED' });
    const login = await service.authenticationOptions({ purpose: 'login' });
    expect(login.userVerification).toBe('required');
    expect(login.allowCredentials).toEqual([]);
    await expect(service.verifyAssertion(assertion(login.challenge, 'cred-unknown'), { purpose: 'login' })).rejects.toMatchObject({ code: 'PASSKEY_REJECTED' });
  });
});

describe('MFA-9 / MFA-10 rename and remove', () => {
  it("answers PASSKEY_NOT_FOUND for another user's passkey", async () => {
    const { service } = setup([passkey(1, ann.id)]);
    await expect(service.rename(8, 1, 'mine now')).rejects.toMatchObject({ code: 'PASSKEY_NOT_FOUND' });
    await expect(service.remove(8, 1)).rejects.toMatchObject({ code: 'PASSKEY_NOT_FOUND' });
    await expect(service.rename(ann.id, 1, 'Laptop')).resolves.toMatchObject({ name: 'Laptop' });
    await service.remove(ann.id, 1);
    await expect(service.remove(ann.id, 1)).rejects.toMatchObject({ code: 'PASSKEY_NOT_FOUND' });
  });
});
