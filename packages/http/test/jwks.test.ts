import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccessTokenRejectedError, createJwksKeyStore, JwksUnavailableError, verifyAccessToken } from '../src/jwks.js';

interface Key {
  kid: string;
  privateKey: Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];
  jwk: JWK;
}

async function newKey(kid: string): Promise<Key> {
  const { publicKey, privateKey } = await generateKeyPair('RS256', { extractable: true });
  return { kid, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' } };
}

function sign(key: Key, overrides: Record<string, unknown> = {}, expiresIn = '10m'): Promise<string> {
  return new SignJWT({ sub: '42', username: 'ann', role: 'LISTENER', tier: 'FREE', sid: 's1', jti: 'j', ...overrides })
    .setProtectedHeader({ alg: 'RS256', kid: key.kid })
    .setIssuedAt()
    .setExpirationTime(expiresIn)
    .sign(key.privateKey);
}

let published: Key[] = [];
let down = false;
let fetches = 0;
let server: Server;
let url: string;

beforeAll(async () => {
  server = createServer((_req, res) => {
    fetches += 1;
    if (down) return void res.writeHead(503).end();
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: published.map((k) => k.jwk) }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/.well-known/jwks.json`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('verifyAccessToken with jose against a remote JWKS', () => {
  it('accepts a token of a published key and returns the contract claims', async () => {
    const a = await newKey('a');
    published = [a];
    down = false;
    const keys = createJwksKeyStore({ url, minRefetchIntervalMs: 0 });
    expect(await verifyAccessToken(await sign(a), keys)).toMatchObject({ sub: '42', username: 'ann', sid: 's1' });
  });

  it('picks up a rotated-in key by its kid, and refuses a kid that is not published', async () => {
    const a = await newKey('a');
    const b = await newKey('b');
    published = [a];
    down = false;
    const keys = createJwksKeyStore({ url, minRefetchIntervalMs: 0 });
    await verifyAccessToken(await sign(a), keys);
    published = [b, a];
    expect((await verifyAccessToken(await sign(b, { sub: '7' }), keys)).sub).toBe('7');
    await expect(verifyAccessToken(await sign(await newKey('c')), keys)).rejects.toBeInstanceOf(AccessTokenRejectedError);
  });

  it('refuses expired tokens (marked expired), foreign signatures, HS256 and malformed claims', async () => {
    const a = await newKey('a');
    published = [a];
    down = false;
    const keys = createJwksKeyStore({ url });
    const expired = await verifyAccessToken(await sign(a, {}, '-1m'), keys).catch((err: unknown) => err);
    expect(expired).toBeInstanceOf(AccessTokenRejectedError);
    expect((expired as AccessTokenRejectedError).expired).toBe(true);
    const forged = await sign({ ...(await newKey('a')) });
    await expect(verifyAccessToken(forged, keys)).rejects.toThrow('The access token is invalid.');
    const hs = await new SignJWT({ sub: '1', sid: 's' }).setProtectedHeader({ alg: 'HS256', kid: 'a' }).setExpirationTime('1m').sign(new Uint8Array(32));
    await expect(verifyAccessToken(hs, keys)).rejects.toBeInstanceOf(AccessTokenRejectedError);
    await expect(verifyAccessToken(await sign(a, { role: 'ROOT' }), keys)).rejects.toBeInstanceOf(AccessTokenRejectedError);
  });

  it('identity unreachable before any fetch → JwksUnavailableError; cached keys keep verifying once fetched', async () => {
    const a = await newKey('a');
    published = [a];
    down = true;
    const cold = createJwksKeyStore({ url });
    await expect(verifyAccessToken(await sign(a), cold)).rejects.toBeInstanceOf(JwksUnavailableError);
    const before = fetches;
    // Within minRefetchIntervalMs a second token does not ask identity again.
    await expect(verifyAccessToken(await sign(a), cold)).rejects.toBeInstanceOf(JwksUnavailableError);
    expect(fetches).toBe(before);

    down = false;
    const warm = createJwksKeyStore({ url, refreshAfterMs: 0 });
    await verifyAccessToken(await sign(a), warm);
    down = true;
    expect((await verifyAccessToken(await sign(a), warm)).sub).toBe('42');
  });
});
