import { describe, expect, it } from 'vitest';
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { SigningKeyService } from './keys.service.js';
import type { SigningKeysStore, StoredSigningKey } from './signing-keys.repository.js';

/** Keys in memory, newest first, as the repository answers them. */
function fakeKeys() {
  let keys: StoredSigningKey[] = [];
  const calls = { active: 0 };
  const store: SigningKeysStore = {
    ensureActive: async (create) => {
      if (keys.length === 0) keys = [await create()];
    },
    add: (key) => {
      keys = [key, ...keys];
      return Promise.resolve();
    },
    retire: (kid) => {
      keys = keys.filter((k) => k.kid !== kid);
      return Promise.resolve();
    },
    active: () => {
      calls.active += 1;
      return Promise.resolve(keys);
    },
  };
  return { store, calls, kids: () => keys.map((k) => k.kid) };
}

const claims = { sub: '7', username: 'ann', role: 'LISTENER' as const, tier: 'FREE' as const, sid: 's-1', jti: 'j-1' };

describe('signing keys and the JWKS (docs/api.md Conventions)', () => {
  it('creates one key when none is active, signs RS256 tokens the JWKS verifies, publishes no private part, and rotates', async () => {
    const { store, kids, calls } = fakeKeys();
    const service = new SigningKeyService(store);
    await service.ensureActiveKey();
    await service.ensureActiveKey();
    expect(kids()).toHaveLength(1);
    const jwks = await service.jwks();
    expect(jwks.keys).toHaveLength(1);
    expect(jwks.keys[0]).toMatchObject({ kty: 'RSA', alg: 'RS256', use: 'sig', kid: kids()[0] });
    expect(jwks.keys[0]).not.toHaveProperty('d');
    const token = await service.sign(claims, 60, 'https://msp.test');
    const { payload } = await jwtVerify(token, createLocalJWKSet(jwks), { issuer: 'https://msp.test', algorithms: ['RS256'] });
    expect(payload).toMatchObject({ sub: '7', sid: 's-1', jti: 'j-1' });
    expect(payload.exp! - payload.iat!).toBe(60);
    // One read of the keys while the cache is fresh.
    expect(calls.active).toBe(1);

    // Rotation (one test: an RSA key pair costs a noticeable fraction of a second): the newest key
    // signs, the old one keeps verifying until it is retired.
    const [old] = jwks.keys;
    const fresh = await service.rotate();
    expect((await service.jwks()).keys.map((k) => k.kid)).toEqual([fresh, old?.kid]);
    expect(decodeProtectedHeader(await service.sign(claims, 60, 'iss')).kid).toBe(fresh);
    await service.retire(old!.kid!);
    expect((await service.jwks()).keys.map((k) => k.kid)).toEqual([fresh]);
  });

  it('refuses to sign without an active key', async () => {
    await expect(new SigningKeyService(fakeKeys().store).sign(claims, 60, 'iss')).rejects.toThrow('no active signing key');
  });
});
