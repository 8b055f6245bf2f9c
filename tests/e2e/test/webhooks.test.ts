import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '@msp/testing';
import type { buildApp as buildIdentity } from '@msp/identity';
import { Fleet } from './fleet.js';

/**
 * Signed webhooks against the whole fleet (docs/developer-platform.md "Webhooks"): an app owner
 * registers an endpoint on a local receiver; a user grants the app `webhooks` on the consent page;
 * follows (social) reach the receiver signed, once each and in order per resource, also after an
 * outage of the receiver (WEBHOOKS_E2E_OUTAGE_MS, 2 min by default, with a short backoff base), and
 * a delivery is sent again on request (APP-22).
 */
const OUTAGE_MS = Number(process.env.WEBHOOKS_E2E_OUTAGE_MS ?? 120_000);
const fleet = new Fleet();
const PASSWORD = 'a long enough secret';
const REDIRECT = 'http://127.0.0.1:9/callback';

interface Delivery {
  raw: string;
  body: { id: string; type: string; created: string; data: { followerId: number; followeeId: number; followerCount: number } };
  answered: number;
}
const received: Delivery[] = [];
let down = false;
let secret = '';
let badSignatures = 0;
let receiver: Server;
let receiverUrl = '';

/** What a receiver does (docs/developer-platform.md): HMAC-SHA256 of `t.body`, compared in constant time. */
function verify(header: string | undefined, raw: string): boolean {
  const parts = Object.fromEntries((header ?? '').split(',').map((p) => p.split('=') as [string, string]));
  if (!parts.t || !parts.v1 || Math.abs(Date.now() / 1000 - Number(parts.t)) > 300) return false;
  const expected = Buffer.from(createHmac('sha256', secret).update(`${parts.t}.${raw}`).digest('hex'));
  const given = Buffer.from(parts.v1);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

const identityApp = () => fleet.apps.get('identity') as Awaited<ReturnType<typeof buildIdentity>>;
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const json = (body: unknown, headers: Record<string, string> = {}): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json', ...headers },
  body: JSON.stringify(body),
});

type User = { id: number; accessToken: string; email: string };
async function verifiedUser(email: string): Promise<User> {
  const reg = await fleet.fetch('/api/auth/register/local', json({ email, displayName: email.split('@')[0], password: PASSWORD, dateOfBirth: '1990-02-03' }));
  expect(reg.status).toBe(201);
  const { userId } = (await reg.json()) as { userId: number };
  await identityApp().infra.prisma.userEmail.updateMany({ where: { userId }, data: { isVerified: true, verifiedAt: new Date() } });
  await identityApp().infra.prisma.user.update({ where: { id: userId }, data: { emailVerified: true } });
  const login = await fleet.fetch('/api/auth/login/local', json({ email, password: PASSWORD }));
  expect(login.status).toBe(200);
  return { id: userId, email, accessToken: ((await login.json()) as { accessToken: string }).accessToken };
}

/** The user approves the app on the consent page (plain HTTP form, as oauth-apps.test.ts does). */
async function grant(user: User, clientId: string, scope: string): Promise<void> {
  const url = new URL(`${fleet.gatewayUrl}/api/oauth/authorize`);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT,
    scope,
    state: 'st',
    code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    code_challenge_method: 'S256',
  }).toString();
  const page = await fetch(url, { signal: AbortSignal.timeout(10_000) });
  expect(page.status).toBe(200);
  const html = await page.text();
  const fields = new URLSearchParams();
  for (const [, name, value] of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) {
    fields.set(
      name!,
      value!
        .replace(/&amp;/g, '&')
        .replace(/&quot;/g, '"')
        .replace(/&#39;/g, "'")
        .replace(/&lt;/g, '<')
        .replace(/&gt;/g, '>'),
    );
  }
  fields.set('email', user.email);
  fields.set('password', PASSWORD);
  fields.set('decision', 'approve');
  const res = await fleet.fetch('/api/oauth/authorize', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: fields.toString(),
    redirect: 'manual',
  });
  await res.arrayBuffer();
  expect(res.status).toBe(303);
}

async function follow(who: User, whom: User): Promise<void> {
  const res = await fleet.fetch(`/api/users/${whom.id}/follow`, { method: 'POST', headers: bearer(who.accessToken) });
  await res.arrayBuffer();
  expect(res.status).toBeLessThan(300);
}

const ok = () => received.filter((d) => d.answered === 200);
/** followerCount of each delivered follow of `user`, in arrival order. */
const countsOf = (user: User) =>
  ok()
    .filter((d) => d.body.data.followeeId === user.id)
    .map((d) => d.body.data.followerCount);

let owner: User;
let fan: User;
let other: User;
let followers: User[];
let appId = 0;
let webhookId = 0;

beforeAll(async () => {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString();
      if (!verify(req.headers['webhook-signature'] as string | undefined, raw)) badSignatures++;
      const answered = down ? 503 : 200;
      received.push({ raw, body: JSON.parse(raw), answered });
      res.writeHead(answered).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  await fleet.start({}, { notification: { WEBHOOK_BACKOFF_BASE_MS: '500', WEBHOOK_BACKOFF_MAX_MS: '4000', WEBHOOK_POLL_MS: '250' } });
  // One at a time: password hashing of six registrations at once can outlast the gateway's upstream timeout.
  const users: User[] = [];
  for (const n of ['wh-owner', 'wh-fan', 'wh-other', 'wh-f1', 'wh-f2', 'wh-f3']) users.push(await verifiedUser(`${n}@example.com`));
  [owner, fan, other, ...followers] = users as [User, User, User, ...User[]];
  const created = await fleet.fetch('/api/apps', json({ name: 'Hooks', redirectUris: [REDIRECT], confidential: false }, bearer(owner.accessToken)));
  expect(created.status).toBe(201);
  const app = (await created.json()) as { id: number; clientId: string };
  appId = app.id;
  await grant(fan, app.clientId, 'read webhooks');
}, 120_000);

afterAll(async () => {
  await fleet.close();
  await new Promise((resolve) => receiver?.close(resolve));
}, 60_000);

describe('APP-18 APP-19 APP-21 APP-22 signed webhooks through the gateway', () => {
  it(
    `delivers signed events once each and in order per resource, also after a ${Math.round(OUTAGE_MS / 1000)}-s outage, and redelivers`,
    async () => {
      // Notification learns of the app from identity's events: the first tries may answer 404.
      const hook = await waitFor(
        async () => {
          const res = await fleet.fetch(`/api/apps/${appId}/webhooks`, json({ url: receiverUrl, events: ['user.followed'] }, bearer(owner.accessToken)));
          const body = (await res.json()) as { id: number; secret: string };
          return res.status === 201 ? body : undefined;
        },
        { timeoutMs: 15_000, intervalMs: 200 },
      );
      secret = hook.secret;
      webhookId = hook.id;
      const listed = await fleet.fetch(`/api/apps/${appId}/webhooks`, { headers: bearer(owner.accessToken) });
      expect(((await listed.json()) as { content: { id: number; secret?: string }[] }).content).toEqual([
        expect.objectContaining({ id: hook.id, status: 'ACTIVE', events: ['user.followed'] }),
      ]);
      // Only the owner: another user's token sees no such app.
      const foreign = await fleet.fetch(`/api/apps/${appId}/webhooks`, { headers: bearer(fan.accessToken) });
      await foreign.arrayBuffer();
      expect(foreign.status).toBe(404);

      const [f1, f2, f3] = followers as [User, User, User];
      // Before the outage: the owner's own resource, the granting fan's, not `other` (no grant).
      await follow(f1, owner);
      await follow(f1, fan);
      await follow(f1, other);
      await follow(f2, owner);
      await waitFor(() => ok().length >= 3, { timeoutMs: 20_000 });

      down = true;
      const outageStart = Date.now();
      await follow(f3, owner);
      await follow(f2, fan);
      await follow(f3, fan);
      await follow(owner, fan);
      await waitFor(() => received.some((d) => d.answered === 503), { timeoutMs: 20_000 });
      await new Promise((r) => setTimeout(r, Math.max(0, OUTAGE_MS - (Date.now() - outageStart))));
      down = false;
      await waitFor(() => ok().length >= 7, { timeoutMs: 30_000, intervalMs: 200 });
      await new Promise((r) => setTimeout(r, 1000));

      expect(badSignatures).toBe(0);
      const ids = ok().map((d) => d.body.id);
      expect(new Set(ids).size).toBe(ids.length);
      expect(ids).toHaveLength(7);
      expect(countsOf(owner)).toEqual([1, 2, 3]);
      expect(countsOf(fan)).toEqual([1, 2, 3, 4]);
      expect(countsOf(other)).toEqual([]);
      expect(received.filter((d) => d.answered === 503).length).toBeGreaterThan(0);

      // APP-21: the log shows the retried ones; APP-22 sends one again with the same id.
      const logRes = await fleet.fetch(`/api/apps/${appId}/webhooks/${webhookId}/deliveries?size=50`, { headers: bearer(owner.accessToken) });
      expect(logRes.status).toBe(200);
      const log = (await logRes.json()) as { content: { id: string; eventId: string; status: string; attempts: number; responseCode: number }[] };
      expect(log.content).toHaveLength(7);
      expect(log.content.every((d) => d.status === 'DELIVERED' && d.responseCode === 200)).toBe(true);
      expect(log.content.some((d) => d.attempts > 1)).toBe(true);
      const again = log.content[0]!;
      const redo = await fleet.fetch(`/api/apps/${appId}/webhooks/${webhookId}/deliveries/${again.id}/redeliver`, {
        method: 'POST',
        headers: bearer(owner.accessToken),
      });
      expect(redo.status).toBe(202);
      await redo.arrayBuffer();
      await waitFor(() => ok().length >= 8, { timeoutMs: 15_000 });
      expect(ok()[7]!.body.id).toBe(again.eventId);
      expect(badSignatures).toBe(0);
    },
    180_000 + OUTAGE_MS,
  );
});
