import type { AccessTokenPayload } from '@msp/contracts';
import { exportJWK, generateKeyPair, importJWK, SignJWT, type JWK } from 'jose';
import type { SigningKeysStore, StoredSigningKey } from './signing-keys.repository.js';

const ALG = 'RS256';
const CACHE_MS = 30_000;

/**
 * Access tokens are signed with the newest active RSA key; every unretired key stays in the
 * JWKS, so a rotation (new key first, old one retired after the token lifetime) never breaks
 * tokens in flight. Keys live in identity's database so all replicas sign with the same key.
 */
export class SigningKeyService {
  private cache: { at: number; keys: StoredSigningKey[] } | null = null;

  constructor(private readonly repo: SigningKeysStore) {}

  async ensureActiveKey(): Promise<void> {
    await this.repo.ensureActive(newKey);
    this.cache = null;
  }

  /** Adds a new signing key; the previous ones keep verifying until retired. */
  async rotate(): Promise<string> {
    const key = await newKey();
    await this.repo.add(key);
    this.cache = null;
    return key.kid;
  }

  async retire(kid: string): Promise<void> {
    await this.repo.retire(kid);
    this.cache = null;
  }

  async jwks(): Promise<{ keys: JWK[] }> {
    const keys = await this.activeKeys();
    return { keys: keys.map((k) => k.publicJwk) };
  }

  /** Signs an access token: the claims of @msp/contracts `AccessTokenClaimsSchema`, read by the gateway and the realtime endpoint. */
  async sign(claims: AccessTokenPayload, ttlSeconds: number, issuer: string): Promise<string> {
    const keys = await this.activeKeys();
    const newest = keys[0];
    if (!newest) throw new Error('no active signing key');
    const key = await importJWK(newest.privateJwk, ALG);
    return new SignJWT(claims)
      .setProtectedHeader({ alg: ALG, kid: newest.kid, typ: 'JWT' })
      .setIssuer(issuer)
      .setIssuedAt()
      .setExpirationTime(Math.floor(Date.now() / 1000) + ttlSeconds)
      .sign(key);
  }

  private async activeKeys() {
    if (this.cache && Date.now() - this.cache.at < CACHE_MS) return this.cache.keys;
    const keys = await this.repo.active();
    this.cache = { at: Date.now(), keys };
    return keys;
  }
}

async function newKey(): Promise<StoredSigningKey> {
  const { publicKey, privateKey } = await generateKeyPair(ALG, { extractable: true });
  const kid = `k-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
  const publicJwk = { ...(await exportJWK(publicKey)), kid, alg: ALG, use: 'sig' };
  const privateJwk = { ...(await exportJWK(privateKey)), kid, alg: ALG };
  return { kid, publicJwk, privateJwk };
}
