import { describe, expect, it } from 'vitest';
import type { ObjectStorage } from '@msp/storage';
import type { ExportsRepository, StoredExport } from './exports.repository.js';
import { EXPORT_COOLDOWN_SECONDS, ExportsService } from './exports.service.js';

const stored = (overrides: Partial<StoredExport> = {}): StoredExport => ({
  id: '0f6e1c7a-1111-4a4a-8888-000000000001',
  userId: 7,
  status: 'READY',
  expectedParts: ['identity'],
  parts: {},
  objectKey: 'exports/x/export.zip',
  attempts: 0,
  createdAt: new Date('2026-01-01T00:00:00Z'),
  readyAt: new Date('2026-01-01T00:05:00Z'),
  expiresAt: new Date(Date.now() + 3600_000),
  ...overrides,
});

type RequestOutcome = Awaited<ReturnType<ExportsRepository['request']>>;

/** The repository's answers as given; the URLs presigned and the wake-ups counted. Cast: the repository is a class. */
function setup(opts: { request?: RequestOutcome; found?: StoredExport | null } = {}) {
  const presigned: Array<[string, number]> = [];
  let woken = 0;
  const rows = {
    request: (_userId: number, exportId: string, _parts: readonly string[], cooldown: number) => {
      expect(cooldown).toBe(EXPORT_COOLDOWN_SECONDS);
      return Promise.resolve(opts.request ?? ({ created: { id: exportId } } as RequestOutcome));
    },
    find: (userId: number) => Promise.resolve(userId === 7 ? (opts.found ?? null) : null),
  } as unknown as ExportsRepository;
  const storage = {
    presignedGet: (key: string, seconds: number) => {
      presigned.push([key, seconds]);
      return Promise.resolve(`https://s3.test/${key}?sig`);
    },
  } as unknown as ObjectStorage;
  return { service: new ExportsService(rows, storage, () => void (woken += 1)), presigned, woken: () => woken };
}

describe('ACC-1 request an export', () => {
  it('creates the export and wakes the assembler', async () => {
    const { service, woken } = setup();
    const { exportId } = await service.request(7);
    expect(exportId).toMatch(/^[0-9a-f-]{36}$/);
    expect(woken()).toBe(1);
  });

  it('answers EXPORT_IN_PROGRESS while one runs, and RATE_LIMITED with retry-after within 24 h of the last', async () => {
    const running = setup({ request: { running: stored({ status: 'PENDING' }) } as unknown as RequestOutcome });
    await expect(running.service.request(7)).rejects.toMatchObject({ code: 'EXPORT_IN_PROGRESS' });
    const limited = setup({ request: { retryAfterSeconds: 3600 } as RequestOutcome });
    await expect(limited.service.request(7)).rejects.toMatchObject({ code: 'RATE_LIMITED', headers: { 'retry-after': '3600' } });
    expect(running.woken() + limited.woken()).toBe(0);
  });
});

describe('ACC-2 state of an export', () => {
  it("answers RESOURCE_NOT_FOUND for an unknown export or another user's", async () => {
    await expect(setup().service.get(7, 'x')).rejects.toMatchObject({ code: 'RESOURCE_NOT_FOUND' });
    await expect(setup({ found: stored() }).service.get(8, 'x')).rejects.toMatchObject({ code: 'RESOURCE_NOT_FOUND' });
  });

  it('gives a READY export a signed URL that ends with it, and none once EXPIRED or before READY', async () => {
    const ready = setup({ found: stored() });
    const view = await ready.service.get(7, 'x');
    expect(view).toMatchObject({ status: 'READY', url: 'https://s3.test/exports/x/export.zip?sig' });
    expect(ready.presigned[0]![1]).toBeGreaterThan(3500);
    expect(ready.presigned[0]![1]).toBeLessThanOrEqual(3600);

    const expired = setup({ found: stored({ expiresAt: new Date(Date.now() - 1000) }) });
    const old = await expired.service.get(7, 'x');
    expect(old.status).toBe('EXPIRED');
    expect(old).not.toHaveProperty('url');

    const pending = await setup({ found: stored({ status: 'PENDING', objectKey: null, readyAt: null, expiresAt: null }) }).service.get(7, 'x');
    expect(pending).toEqual({ id: stored().id, status: 'PENDING', createdAt: '2026-01-01T00:00:00.000Z', readyAt: null, expiresAt: null });
  });
});
