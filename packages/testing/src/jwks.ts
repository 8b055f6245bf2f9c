import http from 'node:http';
import { exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';

export interface TestJwks {
  url: string;
  /** Issuer base the gateway is pointed at (JWKS under /.well-known/jwks.json). */
  issuer: string;
  kid: string;
  sign(claims: Record<string, unknown>, options?: { expiresIn?: string | number; kid?: string; signWithForeignKey?: boolean }): Promise<string>;
  close(): Promise<void>;
}

/** A local JWKS server with a test RS256 key; tokens it signs look like identity's. */
export async function createTestJwks(): Promise<TestJwks> {
  const kid = 'test-key-1';
  const { publicKey, privateKey } = await generateKeyPair('RS256');
  const foreign = await generateKeyPair('RS256');
  const jwk: JWK = { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' };
  const server = http.createServer((req, res) => {
    if (req.url === '/.well-known/jwks.json') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ keys: [jwk] }));
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const issuer = `http://127.0.0.1:${port}`;
  return {
    url: `${issuer}/.well-known/jwks.json`,
    issuer,
    kid,
    async sign(claims, options = {}) {
      const key = options.signWithForeignKey ? foreign.privateKey : privateKey;
      return new SignJWT(claims)
        .setProtectedHeader({ alg: 'RS256', kid: options.kid ?? kid, typ: 'JWT' })
        .setIssuedAt()
        .setExpirationTime(options.expiresIn ?? '30m')
        .sign(key);
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
