/**
 * A local stand-in of Google's OpenID Connect provider, so identity-provider login (AUTH-10…13)
 * runs end to end on a development machine and in tests without a Google client. It is the
 * maintained `oidc-provider` library (a certified OpenID Provider) with one registered client and
 * a one-field login page instead of Google's account chooser: type any e-mail address (and
 * optionally a name), and the stand-in signs you in as that address, marked verified, and grants
 * `openid email profile` without a consent page. "Cancel" answers the client with
 * `error=access_denied`, as Google does when the user backs out.
 *
 * Identity talks to it exactly as to Google: the authorization endpoint (`/auth`), the token
 * endpoint (`/token`, client_secret_post, PKCE S256), RS256 ID tokens whose `iss` is the stand-in's
 * URL, `aud` the client id, with `email`, `email_verified`, `name` and the request's `nonce`,
 * verified against the stand-in's JWKS (`/jwks`). `identityEnv` lists the identity settings that
 * point at it. `pnpm dev` starts one on 127.0.0.1:12112 unless GOOGLE_CLIENT_ID is set (then the
 * real Google is used; see services/identity/README.md).
 *
 * Everything lives in memory (the signing key is made at start): a restart signs everyone out of
 * the stand-in, which only means typing the address again.
 */
import { createHash, generateKeyPairSync, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider, { interactionPolicy, type Adapter, type AdapterPayload, type Configuration } from 'oidc-provider';

/** The development client `pnpm dev` registers and hands to identity (nothing secret: local only). */
export const DEV_OIDC = {
  clientId: 'msp-local-google-client',
  clientSecret: 'msp-local-google-secret',
  host: '127.0.0.1',
  port: 12112,
} as const;

export interface OidcStandInOptions {
  clientId?: string;
  clientSecret?: string;
  /** Exact redirect URIs the client may use (AUTH-11's callback, the web app's `/oauth/callback`). */
  redirectUris: string[];
  host?: string;
  /** 0 (default): any free port. */
  port?: number;
  /** One line per sign-in (development); silent without it. */
  log?: (line: string) => void;
}

export interface OidcStandIn {
  /** The issuer, also the base of every endpoint: `${url}/auth`, `/token`, `/jwks`, `/.well-known/openid-configuration`. */
  url: string;
  /** The identity service's settings that point it at this stand-in. */
  identityEnv: Record<string, string>;
  close(): Promise<void>;
}

/** Identity's GOOGLE_* settings for a provider at `issuer` (the stand-in's endpoint paths). */
export function identityEnvFor(issuer: string, clientId: string = DEV_OIDC.clientId, clientSecret: string = DEV_OIDC.clientSecret): Record<string, string> {
  return {
    GOOGLE_CLIENT_ID: clientId,
    GOOGLE_CLIENT_SECRET: clientSecret,
    GOOGLE_AUTH_URL: `${issuer}/auth`,
    GOOGLE_TOKEN_URL: `${issuer}/token`,
    GOOGLE_JWKS_URL: `${issuer}/jwks`,
    GOOGLE_ISSUERS: issuer,
  };
}

interface Account {
  email: string;
  name: string | null;
}

/**
 * The provider's state (interactions, sessions, grants, codes) in one Map per stand-in, expiring
 * entries as they are read: the library's own memory adapter is shared by every provider of the
 * process and announces itself on each start.
 */
function memoryAdapter(): (model: string) => Adapter {
  const entries = new Map<string, { payload: AdapterPayload; expiresAt: number }>();
  const live = (key: string): AdapterPayload | undefined => {
    const entry = entries.get(key);
    if (entry && entry.expiresAt <= Date.now()) entries.delete(key);
    return entry && entry.expiresAt > Date.now() ? entry.payload : undefined;
  };
  return (model) => ({
    upsert: async (id, payload, expiresIn) => {
      entries.set(`${model}:${id}`, { payload, expiresAt: expiresIn ? Date.now() + expiresIn * 1000 : Number.POSITIVE_INFINITY });
    },
    find: async (id) => live(`${model}:${id}`),
    findByUid: async (uid) =>
      [...entries.keys()]
        .filter((k) => k.startsWith(`${model}:`))
        .map(live)
        .find((p) => p?.uid === uid),
    findByUserCode: async (userCode) =>
      [...entries.keys()]
        .filter((k) => k.startsWith(`${model}:`))
        .map(live)
        .find((p) => p?.userCode === userCode),
    consume: async (id) => {
      const payload = live(`${model}:${id}`);
      if (payload) payload.consumed = Math.floor(Date.now() / 1000);
    },
    destroy: async (id) => {
      entries.delete(`${model}:${id}`);
    },
    revokeByGrantId: async (grantId) => {
      for (const [key, entry] of entries) if (entry.payload.grantId === grantId) entries.delete(key);
    },
  });
}

const EMAIL = /^[^\s@<>"]{1,64}@[^\s@<>"]{1,190}\.[^\s@<>"]{2,63}$/;

/** A stable, Google-like numeric subject per address: the same person gets the same `sub` after a restart. */
function subjectOf(email: string): string {
  return BigInt(`0x${createHash('sha256').update(`oidc-stand-in:${email}`).digest('hex').slice(0, 16)}`).toString();
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

const MAX_FORM_BYTES = 8192;

async function readForm(req: http.IncomingMessage): Promise<URLSearchParams | null> {
  if (!String(req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')) return null;
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_FORM_BYTES) return null;
    chunks.push(chunk);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

function page(uid: string, clientId: string, email: string, problem: string | null): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Sign in (local Google stand-in)</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body{font-family:system-ui,sans-serif;max-width:26rem;margin:4rem auto;padding:0 1rem}label,input,button{display:block;width:100%;margin:.4rem 0}input{padding:.5rem}button{padding:.6rem}.problem{color:#b00020}small{color:#555}</style>
</head><body>
<h1>Sign in</h1>
<p><small>Local stand-in of Google for <code>${escapeHtml(clientId)}</code>: any address signs in, marked verified.</small></p>
${problem ? `<p class="problem" role="alert">${escapeHtml(problem)}</p>` : ''}
<form method="post" action="/interaction/${escapeHtml(uid)}">
<label for="email">E-mail address</label>
<input id="email" name="email" type="email" required autofocus value="${escapeHtml(email)}">
<label for="name">Name (optional)</label>
<input id="name" name="name" type="text" maxlength="50">
<button type="submit" name="action" value="login">Continue</button>
<button type="submit" name="action" value="cancel" formnovalidate>Cancel</button>
</form>
</body></html>`;
}

function send(res: http.ServerResponse, status: number, html: string): void {
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
  res.end(html);
}

export async function startOidcStandIn(options: OidcStandInOptions): Promise<OidcStandIn> {
  const clientId = options.clientId ?? DEV_OIDC.clientId;
  const clientSecret = options.clientSecret ?? DEV_OIDC.clientSecret;
  const host = options.host ?? '127.0.0.1';
  const accounts = new Map<string, Account>();

  // The server listens first: the issuer URL carries the port it got.
  let handler: http.RequestListener = (_req, res) => send(res, 503, 'starting');
  const server = http.createServer((req, res) => handler(req, res));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const issuer = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;

  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const signingKey = { ...privateKey.export({ format: 'jwk' }), kid: randomBytes(8).toString('hex'), alg: 'RS256', use: 'sig' };

  // Google's authorization endpoint takes prompt=select_account (identity sends it): a requestable
  // prompt of its own, resolved by the same page as login.
  const policy = interactionPolicy.base();
  policy.add(new interactionPolicy.Prompt({ name: 'select_account', requestable: true }), 0);

  const configuration: Configuration = {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: options.redirectUris,
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_post',
      },
    ],
    adapter: memoryAdapter(),
    jwks: { keys: [signingKey] },
    cookies: { keys: [randomBytes(32).toString('hex')] },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    // Google puts the profile claims into the ID token itself; identity reads them there.
    conformIdTokenClaims: false,
    // Seconds; Google's codes live minutes and its ID tokens an hour.
    ttl: { AuthorizationCode: 300, AccessToken: 3600, IdToken: 3600, Interaction: 3600, Grant: 86_400, Session: 86_400 },
    features: { devInteractions: { enabled: false } },
    interactions: { policy, url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    clientBasedCORS: () => false,
    findAccount: (_ctx, sub) => {
      const account = accounts.get(sub);
      if (!account) return undefined;
      return { accountId: sub, claims: () => ({ sub, email: account.email, email_verified: true, name: account.name ?? undefined }) };
    },
    renderError: (ctx, out) => {
      ctx.type = 'html';
      ctx.body = `<!doctype html><title>Sign-in error</title><h1>${escapeHtml(String(out.error))}</h1><p>${escapeHtml(String(out.error_description ?? ''))}</p>`;
    },
  };
  const provider = new Provider(issuer, configuration);
  const providerCallback = provider.callback();

  const interaction = async (req: http.IncomingMessage, res: http.ServerResponse, uid: string): Promise<void> => {
    const details = await provider.interactionDetails(req, res);
    if (details.uid !== uid) return send(res, 400, 'This sign-in does not match its cookie; start again.');
    const remembered = details.session?.accountId ? (accounts.get(details.session.accountId)?.email ?? '') : '';
    const hint = typeof details.params.login_hint === 'string' ? details.params.login_hint : remembered;
    if (req.method === 'GET') return send(res, 200, page(uid, clientId, hint, null));
    if (req.method !== 'POST') return send(res, 405, 'Method not allowed.');
    const form = await readForm(req);
    if (!form) return send(res, 400, page(uid, clientId, hint, 'Send the form as application/x-www-form-urlencoded (at most 8 KiB).'));
    if (form.get('action') === 'cancel') {
      return provider.interactionFinished(
        req,
        res,
        { error: 'access_denied', error_description: 'The user cancelled the sign-in.' },
        { mergeWithLastSubmission: false },
      );
    }
    const email = (form.get('email') ?? '').trim().toLowerCase();
    if (!EMAIL.test(email)) return send(res, 400, page(uid, clientId, email, 'Type an e-mail address, like ada@example.com.'));
    const name = (form.get('name') ?? '').trim().slice(0, 50) || null;
    const accountId = subjectOf(email);
    accounts.set(accountId, { email, name });
    const grant = new provider.Grant({ accountId, clientId: String(details.params.client_id) });
    grant.addOIDCScope(String(details.params.scope ?? 'openid'));
    const grantId = await grant.save();
    options.log?.(`signed in ${email} (sub ${accountId})`);
    return provider.interactionFinished(req, res, { select_account: {}, login: { accountId }, consent: { grantId } }, { mergeWithLastSubmission: false });
  };

  handler = (req, res) => {
    const match = /^\/interaction\/([\w-]{1,100})\/?(?:\?.*)?$/.exec(req.url ?? '');
    if (!match) return void providerCallback(req, res);
    interaction(req, res, match[1]!).catch((err: unknown) => {
      // An expired or unknown interaction (its cookie is gone or older than an hour) is the user's to restart.
      const message = err instanceof Error ? err.message : String(err);
      if (!res.headersSent) send(res, 400, `<!doctype html><title>Sign-in error</title><p>${escapeHtml(message)}; start the sign-in again.</p>`);
      else res.destroy();
    });
  };

  return {
    url: issuer,
    identityEnv: identityEnvFor(issuer, clientId, clientSecret),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
