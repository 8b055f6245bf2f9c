import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SMTPServer } from 'smtp-server';
import PostalMime from 'postal-mime';
import { decodeJwt } from 'jose';
import { startServiceTestEnv, waitFor, type ServiceTestEnv } from '@msp/testing';
import { buildApp, loadIdentityConfig } from '../src/app.js';

export const migrations = fileURLToPath(new URL('../prisma/migrations', import.meta.url));

export interface ReceivedMail {
  to: string;
  subject: string;
  text: string;
}

/** A local SMTP server that keeps what it receives (the mails identity really sends). */
export async function startMailServer() {
  const mails: ReceivedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        PostalMime.parse(Buffer.concat(chunks))
          .then((parsed) => {
            for (const rcpt of session.envelope.rcptTo) mails.push({ to: rcpt.address.toLowerCase(), subject: parsed.subject ?? '', text: parsed.text ?? '' });
            callback();
          })
          .catch((err: Error) => callback(err));
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as { port: number }).port;
  return {
    url: `smtp://127.0.0.1:${port}`,
    mails,
    /** Waits for the next mail to `to` whose subject matches, and returns the token of its link. */
    async tokenFor(to: string, subject: RegExp, after = 0): Promise<{ mail: ReceivedMail; token: string; link: string }> {
      const mail = await waitFor(() => mails.slice(after).find((m) => m.to === to.toLowerCase() && subject.test(m.subject)), {
        timeoutMs: 10_000,
        message: `no "${subject}" mail for ${to}`,
      });
      const link = /https?:\/\/\S+\?token=[\w-]+/.exec(mail.text)?.[0];
      if (!link) throw new Error(`no link in mail: ${mail.text}`);
      return { mail, link, token: new URL(link).searchParams.get('token')! };
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export type IdentityApp = Awaited<ReturnType<typeof buildApp>>;

export interface Harness {
  env: ServiceTestEnv;
  app: IdentityApp;
  mail: Awaited<ReturnType<typeof startMailServer>>;
  prefix: string;
  close(): Promise<void>;
}

export async function startIdentity(label: string, extraEnv: Record<string, string> = {}): Promise<Harness> {
  const [env, mail] = await Promise.all([startServiceTestEnv(label, migrations), startMailServer()]);
  const prefix = env.redisKeyPrefix;
  const app = await buildApp(
    loadIdentityConfig({
      ...env.env,
      SMTP_URL: mail.url,
      MAIL_POLL_MS: '100',
      MAIL_DIR: mkdtempSync(path.join(tmpdir(), 'identity-mail-')),
      // Peers that do not exist: profile flags degrade, tier changes answer 503.
      SOCIAL_URL: 'http://127.0.0.1:9',
      BILLING_URL: 'http://127.0.0.1:9',
      ...extraEnv,
    }),
    { logger: false },
  );
  await app.ready();
  return {
    env,
    app,
    mail,
    prefix,
    async close() {
      await app.close();
      await Promise.allSettled([env.close(), mail.close()]);
    },
  };
}

/** What the gateway forwards for a verified access token. */
export function callerHeaders(accessToken: string): Record<string, string> {
  const c = decodeJwt(accessToken) as { sub: string; role: string; tier: string; sid: string; username: string };
  return { 'x-user-id': c.sub, 'x-user-role': c.role, 'x-user-tier': c.tier, 'x-session-id': c.sid, 'x-username': c.username };
}

export const PASSWORD = 'correct horse battery staple';

/** Registers, verifies through the mailed link and logs in. */
export async function verifiedUser(h: Harness, email: string, displayName = email.split('@')[0]!) {
  const reg = await h.app.inject({
    method: 'POST',
    url: '/api/auth/register/local',
    payload: { email, displayName, password: PASSWORD, dateOfBirth: '1990-01-01' },
  });
  if (reg.statusCode !== 201) throw new Error(`register failed: ${reg.body}`);
  const { token } = await h.mail.tokenFor(email, /verify/i);
  const verified = await h.app.inject({ method: 'POST', url: '/api/auth/verify-email', payload: { token } });
  if (verified.statusCode !== 200) throw new Error(`verify failed: ${verified.body}`);
  return { ...(reg.json() as { userId: number; username: string }), ...(await login(h, email)) };
}

export async function login(h: Harness, email: string, password = PASSWORD, ip = '10.0.0.1') {
  const res = await h.app.inject({
    method: 'POST',
    url: '/api/auth/login/local',
    headers: { 'x-refresh-token-delivery': 'body', 'x-forwarded-for': ip },
    payload: { email, password },
  });
  if (res.statusCode !== 200) throw new Error(`login failed: ${res.statusCode} ${res.body}`);
  const body = res.json() as { accessToken: string; refreshToken: string; user: { id: number } };
  return { accessToken: body.accessToken, refreshToken: body.refreshToken, headers: callerHeaders(body.accessToken) };
}
