import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '@msp/testing';
import { loadIdentityConfig } from '../src/app.js';
import { Links } from '../src/links.js';
import { EXPORT_PARTS } from '../src/modules/exports/export-parts.js';
import { ExportsRepository, type StoredPart } from '../src/modules/exports/exports.repository.js';
import { ExportAssembler, zipKeyOf } from '../src/modules/exports/exports.service.js';
import { PASSWORD, startIdentity, verifiedUser, type Harness } from './helpers.js';

let h: Harness;
let origin: string;
let server: Server;
/** The stalled download: set when the assembler opens it, `closed` once the assembler drops it. */
const stalled = { opened: false, closed: false };

beforeAll(async () => {
  // The app's own assembler runs once at start, then only when a part is recorded or every 10
  // minutes: the export below is stored by SQL and built by this file's assembler.
  h = await startIdentity('identity_account_export_cancel', { EXPORT_POLL_MS: '600000' });
  // Stands in for the object store: every part answers `{}` at once, the original sends its first
  // 64 KiB of 50 MB and then nothing, so the ZIP is still being written when the account is deleted.
  server = createServer((req, res) => {
    if (req.url !== '/original') return res.end('{}');
    stalled.opened = true;
    res.writeHead(200, { 'content-type': 'audio/wav', 'content-length': String(50 * 1024 * 1024) });
    res.write(Buffer.alloc(64 * 1024));
    req.socket.on('close', () => {
      stalled.closed = true;
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}, 60_000);

afterAll(async () => {
  server?.closeAllConnections();
  server?.close();
  await h?.close();
});

describe('ACC-3 deleting the account during an export', () => {
  it('cancels the export and stops the ZIP being written: no ZIP is stored and the export stays CANCELLED', async () => {
    const u = await verifiedUser(h, 'exf@example.com', 'Exf');
    // An export whose every part is in, the catalog part with one large original. Stored by SQL:
    // ACC-1's own flow (account-export.test.ts) would also wake the app's assembler, which must not
    // claim it (it reads only from the real object store).
    const exportId = randomUUID();
    const parts: Record<string, StoredPart> = {};
    for (const service of EXPORT_PARTS) parts[service] = { service, objectKey: `parts/${service}.json`, url: `${origin}/${service}.json`, files: [] };
    parts.catalog!.files = [{ objectKey: 'original', name: 'catalog/originals/1-big.wav', url: `${origin}/original` }];
    await h.app.infra.prisma.$executeRawUnsafe(
      `INSERT INTO account_exports (id, user_id, status, expected_parts, parts) VALUES ($1::uuid, $2, 'RUNNING', $3::text[], $4::jsonb)`,
      exportId,
      u.userId,
      [...EXPORT_PARTS],
      JSON.stringify(parts),
    );

    const rows = new ExportsRepository(h.app.infra.prisma);
    const links = new Links(loadIdentityConfig(h.env.env));
    // A 3-s lease: its heartbeat, which notices the cancellation, beats every second.
    const assembler = new ExportAssembler(rows, h.app.infra.storage, links, h.app.log, origin, 100, 3);
    await assembler.start();
    try {
      await waitFor(() => stalled.opened, { message: 'the assembler did not reach the original' });
      const deleted = await h.app.inject({ method: 'DELETE', url: '/api/users/me', headers: u.headers, payload: { password: PASSWORD } });
      expect(deleted.statusCode).toBe(202);
      const [row] = await h.app.infra.prisma.$queryRawUnsafe<Array<{ status: string }>>(`SELECT status FROM account_exports WHERE id = $1::uuid`, exportId);
      expect(row?.status).toBe('CANCELLED');

      // The assembler gives the download up (it would otherwise wait for the rest of the 50 MB).
      await waitFor(() => stalled.closed, { timeoutMs: 10_000, message: 'the ZIP of a cancelled export is still being written' });
      await new Promise((r) => setTimeout(r, 500));
      expect(await h.app.infra.storage.stat(zipKeyOf(exportId))).toBeNull();
      const [after] = await h.app.infra.prisma.$queryRawUnsafe<Array<{ status: string; attempts: number }>>(
        `SELECT status, attempts FROM account_exports WHERE id = $1::uuid`,
        exportId,
      );
      expect(after).toEqual({ status: 'CANCELLED', attempts: 1 });
    } finally {
      await assembler.stop();
    }
  });
});
