import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jetstream } from '@nats-io/jetstream';
import yauzl from 'yauzl';
import {
  BillingExportPartReady,
  CatalogExportPartReady,
  createEnvelope,
  MessagingExportPartReady,
  NotificationExportPartReady,
  SocialExportPartReady,
  type EventDefinition,
  type ExportPartReady,
} from '@msp/events';
import { waitFor } from '@msp/testing';
import { cancelRunningExports } from '../src/modules/exports/exports.repository.js';
import { startIdentity, verifiedUser, type Harness } from './helpers.js';

let h: Harness;

beforeAll(async () => {
  h = await startIdentity('identity_account_export', { EXPORT_POLL_MS: '200' });
}, 60_000);

afterAll(async () => {
  await h?.close();
});

type User = Awaited<ReturnType<typeof verifiedUser>>;

async function requestExport(u: User) {
  return h.app.inject({ method: 'POST', url: '/api/users/me/export', headers: u.headers });
}

async function getExport(u: User, id: string) {
  return h.app.inject({ method: 'GET', url: `/api/users/me/export/${id}`, headers: u.headers });
}

const statusOf = async (u: User, id: string) => (await getExport(u, id)).json<{ status: string }>().status;

/** Stands in for another service: its part and files in object storage, then its part-ready event. */
async function publishPart(def: EventDefinition<ExportPartReady>, exportId: string, json: unknown, files: Array<{ name: string; body: Buffer }> = []) {
  const storage = h.app.infra.storage;
  const service = def.producer;
  const objectKey = `test-parts/${exportId}/${service}.json`;
  await storage.put(objectKey, JSON.stringify(json), 'application/json');
  const stored = [];
  for (const [i, f] of files.entries()) {
    const key = `test-parts/${exportId}/${service}-file-${i}`;
    await storage.putStream(key, Readable.from([f.body]), 'application/octet-stream');
    stored.push({ objectKey: key, name: f.name, url: await storage.presignedGet(key, 3600) });
  }
  const envelope = createEnvelope(def, { exportId, service, objectKey, url: await storage.presignedGet(objectKey, 3600), files: stored });
  await jetstream(h.app.infra.nc).publish(envelope.type, JSON.stringify(envelope), { msgID: envelope.id });
}

/** The parts of messaging, notification and billing (empty here). */
async function publishOtherParts(exportId: string) {
  for (const def of [MessagingExportPartReady, NotificationExportPartReady, BillingExportPartReady])
    await publishPart(def, exportId, { service: def.producer });
}

/** Every entry of a ZIP, read with yauzl (a library independent of the writer). */
async function unzip(body: Buffer): Promise<Map<string, Buffer>> {
  const zip = await new Promise<yauzl.ZipFile>((resolve, reject) =>
    yauzl.fromBuffer(body, { lazyEntries: true }, (err, z) => (err ? reject(err) : resolve(z))),
  );
  const entries = new Map<string, Buffer>();
  await new Promise<void>((resolve, reject) => {
    zip.on('entry', (entry: yauzl.Entry) => {
      zip.openReadStream(entry, (err, stream) => {
        if (err) return reject(err);
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => {
          entries.set(entry.fileName, Buffer.concat(chunks));
          zip.readEntry();
        });
        stream.on('error', reject);
      });
    });
    zip.on('end', () => resolve());
    zip.on('error', reject);
    zip.readEntry();
  });
  return entries;
}

async function waitReady(u: User, id: string) {
  await waitFor(async () => (await statusOf(u, id)) === 'READY', { timeoutMs: 20_000, message: 'export not READY' });
  return (await getExport(u, id)).json<{ status: string; url: string; readyAt: string; expiresAt: string; createdAt: string }>();
}

describe('ACC-1 request an export of my data / ACC-2 state of an export', () => {
  it('builds one ZIP of every part and the original files byte for byte, then mails the user', async () => {
    const u = await verifiedUser(h, 'exa@example.com', 'Exa');
    const first = await requestExport(u);
    expect(first.statusCode, first.body).toBe(202);
    const { exportId } = first.json<{ exportId: string }>();
    const again = await requestExport(u);
    expect(again.statusCode).toBe(409);
    expect(again.json().code).toBe('EXPORT_IN_PROGRESS');

    // identity's own part is recorded by its consumer: the export is RUNNING, waiting for the others.
    await waitFor(async () => (await statusOf(u, exportId)) === 'RUNNING', { message: 'identity part not recorded' });
    const pending = (await getExport(u, exportId)).json();
    expect(pending).toMatchObject({ id: exportId, status: 'RUNNING', readyAt: null, expiresAt: null });
    expect(pending.url).toBeUndefined();

    const original = randomBytes(3 * 1024 * 1024 + 17);
    const cover = randomBytes(40_000);
    await publishPart(CatalogExportPartReady, exportId, { tracks: [{ id: 1, title: 'Song' }] }, [
      { name: 'catalog/originals/1-song.wav', body: original },
      { name: 'catalog/covers/1-song.jpg', body: cover },
    ]);
    await publishOtherParts(exportId);
    await new Promise((r) => setTimeout(r, 300));
    expect(await statusOf(u, exportId)).toBe('RUNNING');
    await publishPart(SocialExportPartReady, exportId, { comments: [{ id: 9, body: 'nice' }] });

    const ready = await waitReady(u, exportId);
    expect(Date.parse(ready.expiresAt) - Date.parse(ready.readyAt)).toBe(24 * 60 * 60 * 1000);
    const res = await fetch(ready.url);
    expect(res.status).toBe(200);
    const entries = await unzip(Buffer.from(await res.arrayBuffer()));
    expect([...entries.keys()].sort()).toEqual([
      'billing.json',
      'catalog.json',
      'catalog/covers/1-song.jpg',
      'catalog/originals/1-song.wav',
      'identity.json',
      'messaging.json',
      'notification.json',
      'social.json',
    ]);
    expect(entries.get('catalog/originals/1-song.wav')!.equals(original)).toBe(true);
    expect(entries.get('catalog/covers/1-song.jpg')!.equals(cover)).toBe(true);
    expect(JSON.parse(entries.get('social.json')!.toString())).toEqual({ comments: [{ id: 9, body: 'nice' }] });
    const identity = JSON.parse(entries.get('identity.json')!.toString());
    expect(identity.profile).toMatchObject({ id: u.userId, email: 'exa@example.com', displayName: 'Exa' });
    expect(identity.sessions.length).toBeGreaterThan(0);
    expect(identity.emails).toEqual([expect.objectContaining({ email: 'exa@example.com', isVerified: true })]);
    expect(JSON.stringify(identity)).not.toMatch(/password|\$argon2/i);

    await waitFor(() => h.mail.mails.find((m) => m.to === 'exa@example.com' && /export is ready/i.test(m.subject)), { message: 'no mail' });
    const announced = await h.app.infra.prisma.outboxEvent.findMany({ where: { type: 'identity.user.export-ready.v1' } });
    expect(announced.map((e) => (e.payload as { data: { exportId: string } }).data.exportId)).toContain(exportId);

    // The parts are no longer needed: identity.user.export-closed.v1, and identity's own part is gone.
    const closed = await h.app.infra.prisma.outboxEvent.findMany({ where: { type: 'identity.user.export-closed.v1' } });
    expect(closed.map((e) => (e.payload as { data: { exportId: string; status: string } }).data)).toContainEqual({
      exportId,
      userId: u.userId,
      status: 'READY',
    });
    expect(await h.app.infra.storage.list(`exports/${exportId}/parts/`)).toEqual([]);

    // One export per 24 h.
    const tooSoon = await requestExport(u);
    expect(tooSoon.statusCode).toBe(429);
    expect(Number(tooSoon.headers['retry-after'])).toBeGreaterThan(24 * 60 * 60 - 120);
  });

  it("answers 404 for an unknown export and for another user's export", async () => {
    const a = await verifiedUser(h, 'exb@example.com', 'Exb');
    const b = await verifiedUser(h, 'exc@example.com', 'Exc');
    const { exportId } = (await requestExport(a)).json<{ exportId: string }>();
    expect((await getExport(b, exportId)).statusCode).toBe(404);
    expect((await getExport(a, '8d7f4b0e-0000-4000-8000-000000000000')).statusCode).toBe(404);
    expect((await getExport(a, 'not-a-uuid')).statusCode).toBe(400);
    expect((await h.app.inject({ method: 'POST', url: '/api/users/me/export' })).statusCode).toBe(401);
  });

  it('cancelRunningExports (account deletion) cancels a running export; late parts do not revive it; a new one may start', async () => {
    const u = await verifiedUser(h, 'exd@example.com', 'Exd');
    const { exportId } = (await requestExport(u)).json<{ exportId: string }>();
    expect(await cancelRunningExports(h.app.infra.prisma, u.userId)).toBe(1);
    expect(await statusOf(u, exportId)).toBe('CANCELLED');
    const closed = await h.app.infra.prisma.outboxEvent.findMany({ where: { type: 'identity.user.export-closed.v1' } });
    expect(closed.map((e) => (e.payload as { data: { exportId: string; status: string } }).data)).toContainEqual({
      exportId,
      userId: u.userId,
      status: 'CANCELLED',
    });
    await publishPart(CatalogExportPartReady, exportId, {});
    await publishPart(SocialExportPartReady, exportId, {});
    await new Promise((r) => setTimeout(r, 800));
    expect(await statusOf(u, exportId)).toBe('CANCELLED');
    // A cancelled export does not count against the 24 h.
    expect((await requestExport(u)).statusCode).toBe(202);
  });

  it('finishes an export whose assembler died mid-way (its lease runs out and another claim builds it)', async () => {
    const u = await verifiedUser(h, 'exe@example.com', 'Exe');
    const { exportId } = (await requestExport(u)).json<{ exportId: string }>();
    await waitFor(async () => (await statusOf(u, exportId)) === 'RUNNING');
    // A crashed assembler: it held the lease (for 2 more seconds) and never finished.
    await h.app.infra.prisma.$executeRawUnsafe(
      `UPDATE account_exports SET lease_until = now() + interval '2 seconds', attempts = 1 WHERE id = $1::uuid`,
      exportId,
    );
    await publishPart(CatalogExportPartReady, exportId, {});
    await publishPart(SocialExportPartReady, exportId, {});
    await publishOtherParts(exportId);
    await new Promise((r) => setTimeout(r, 1000));
    expect(await statusOf(u, exportId)).toBe('RUNNING');
    const ready = await waitReady(u, exportId);
    const entries = await unzip(Buffer.from(await (await fetch(ready.url)).arrayBuffer()));
    expect([...entries.keys()].sort()).toEqual(['billing.json', 'catalog.json', 'identity.json', 'messaging.json', 'notification.json', 'social.json']);
  });
});
