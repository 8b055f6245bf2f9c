import net from 'node:net';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import Fastify, { type FastifyInstance } from 'fastify';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jetstream } from '@nats-io/jetstream';
import { ErrorResponseSchema } from '@msp/contracts';
import { createEnvelope, UserRegistered } from '@msp/events';
import { ASSERTION_HEADER, DEV_GATEWAY_SIGNING_KEY, deriveAssertionKey, signAssertion } from '@msp/http';
import { startServiceTestEnv, waitFor, type ServiceTestEnv } from '@msp/testing';
import { buildApp, loadCatalogConfig } from '../src/app.js';

/**
 * Multipart bodies that end (Content-Length complete) without their closing delimiter, sent as exact
 * bytes over a real socket: every multipart route answers 400 VALIDATION_FAILED at once and keeps
 * nothing (no track, no object, no playlist).
 */
const migrations = fileURLToPath(new URL('../prisma/migrations', import.meta.url));
const ARTIST = 931;
/** What a prompt answer means here: far below the 30 s body idle timeout. */
const PROMPT_MS = 2000;

let env: ServiceTestEnv;
let app: Awaited<ReturnType<typeof buildApp>>;
let probe: FastifyInstance;
let port: number;
const assertionKey = deriveAssertionKey(DEV_GATEWAY_SIGNING_KEY, 'catalog');

/** A RIFF/WAVE file of 8 kHz mono silence (`bytes` of samples: 1600 is 0.1 s). */
function wav(bytes = 1600): Buffer {
  const data = Buffer.alloc(bytes);
  const header = Buffer.alloc(44);
  header.write('RIFF', 0);
  header.writeUInt32LE(36 + data.length, 4);
  header.write('WAVE', 8);
  header.write('fmt ', 12);
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(8000, 24);
  header.writeUInt32LE(16000, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36);
  header.writeUInt32LE(data.length, 40);
  return Buffer.concat([header, data]);
}

interface Part {
  name: string;
  value: Buffer | string;
  filename?: string;
}

const BOUNDARY = 'trunc-7d1c0a';
const partHead = (p: Part) =>
  `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${p.name}"${p.filename ? `; filename="${p.filename}"\r\nContent-Type: application/octet-stream` : ''}\r\n\r\n`;
const encode = (parts: Part[]) => Buffer.concat(parts.flatMap((p) => [Buffer.from(partHead(p)), Buffer.from(p.value), Buffer.from('\r\n')]));

/**
 * The truncations: `fields` are complete text parts, `file` the file part the route stores. Each
 * body is sent whole (Content-Length matches it); what is missing is the multipart framing.
 */
function truncations(fields: Part[], file: Part): Array<[string, Buffer]> {
  const data = Buffer.from(file.value);
  return [
    ['every part, then no closing delimiter', encode([...fields, file])],
    ['every part, then a delimiter without its closing dashes', Buffer.concat([encode([...fields, file]), Buffer.from(`--${BOUNDARY}`)])],
    ['cut in the middle of the file part headers', Buffer.concat([encode(fields), Buffer.from(partHead(file).slice(0, 50))])],
    ['cut in the middle of the file data', Buffer.concat([encode(fields), Buffer.from(partHead(file)), data.subarray(0, Math.floor(data.length / 2))])],
    ['no part at all: only the opening delimiter', Buffer.from(`--${BOUNDARY}\r\n`)],
    ['only a preamble, no delimiter at all', Buffer.from('This body has a preamble and nothing else.\r\n')],
    ['no bytes at all', Buffer.alloc(0)],
  ];
}

interface RawAnswer {
  status: number;
  body: string;
  ms: number;
}

/**
 * Sends one request as exact bytes (fetch and inject would fix the body up) with the gateway's
 * signed identity, and reads the answer; rejects when none arrives within `PROMPT_MS`.
 */
function send(method: string, url: string, body: Buffer, split = false): Promise<RawAnswer> {
  const contentType = `multipart/form-data; boundary=${BOUNDARY}`;
  const requestId = randomUUID();
  const identity = { 'x-user-id': String(ARTIST), 'x-user-role': 'ARTIST', 'x-username': `u${ARTIST}`, 'x-user-tier': 'PRO', 'x-request-id': requestId };
  const headers: Record<string, string> = {
    host: `127.0.0.1:${port}`,
    'content-type': contentType,
    'content-length': String(body.length),
    ...identity,
    [ASSERTION_HEADER]: signAssertion(assertionKey, { method, url, requestId, headers: identity }),
  };
  const head = `${method} ${url} HTTP/1.1\r\n${Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('')}\r\n`;
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let received = Buffer.alloc(0);
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer to ${method} ${url} within ${PROMPT_MS} ms`));
    }, PROMPT_MS);
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      const end = received.indexOf('\r\n\r\n');
      if (end === -1) return;
      const headText = received.subarray(0, end).toString('latin1');
      const length = Number(/\r\ncontent-length:\s*(\d+)/i.exec(headText)?.[1] ?? NaN);
      if (!Number.isFinite(length) || received.length < end + 4 + length) return;
      clearTimeout(timer);
      socket.destroy();
      resolve({ status: Number(headText.split(' ')[1]), body: received.subarray(end + 4, end + 4 + length).toString('utf8'), ms: Date.now() - started });
    });
    socket.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    const bytes = Buffer.concat([Buffer.from(head, 'latin1'), body]);
    if (!split) socket.write(bytes);
    else {
      // The parser is busy with the first half (storing a file) when the body ends.
      const half = head.length + Math.floor(body.length / 2);
      socket.write(bytes.subarray(0, half));
      setTimeout(() => socket.write(bytes.subarray(half)), 50);
    }
  });
}

function expectValidationFailed(answer: RawAnswer) {
  expect(answer.status, answer.body).toBe(400);
  expect(ErrorResponseSchema.parse(JSON.parse(answer.body)).code).toBe('VALIDATION_FAILED');
  expect(answer.ms).toBeLessThan(PROMPT_MS);
}

/** Sends the body in one write, then in two (the end arriving while the first half is handled). */
async function expectRefusedEitherWay(method: string, url: string, body: Buffer, label: string) {
  for (const split of [false, true]) {
    const answer = await send(method, url, body, split).catch((err: Error) => {
      throw new Error(`${label}${split ? ' (two writes)' : ''}: ${err.message}`);
    });
    expect(answer.status, `${label}: ${answer.body}`).toBe(400);
    expectValidationFailed(answer);
  }
}

async function storedKeys(): Promise<string[]> {
  return (await Promise.all(['uploads/', 'public/'].map((prefix) => app.infra.storage.list(prefix)))).flat();
}

beforeAll(async () => {
  probe = Fastify();
  probe.post('/internal/media/probe', async () => ({
    readable: true,
    formatName: 'wav',
    durationSeconds: 0.1,
    audioStreams: [{ codecName: 'pcm_s16le', packets: 10 }],
    videoStreams: 0,
  }));
  const probeUrl = await probe.listen({ port: 0, host: '127.0.0.1' });
  env = await startServiceTestEnv('catalog_multipart_truncated', migrations);
  app = await buildApp(loadCatalogConfig({ ...env.env, MEDIA_PROCESSING_URL: probeUrl, UPLOAD_WAIT_MS: '500' }), { logger: false });
  await app.listen({ port: 0, host: '127.0.0.1' });
  port = (app.server.address() as net.AddressInfo).port;
  const event = createEnvelope(UserRegistered, {
    userId: ARTIST,
    username: 'truncy',
    displayName: 'Truncy',
    avatarUrl: null,
    tier: 'PRO',
    role: 'ARTIST',
    isPrivate: false,
    createdAt: new Date().toISOString(),
  });
  await jetstream(app.infra.nc).publish(event.type, JSON.stringify(event), { msgID: event.id });
  await waitFor(async () => (await app.infra.prisma.userSummary.count({ where: { userId: ARTIST } })) === 1 || undefined, { message: 'projection' });
}, 60_000);

afterAll(async () => {
  await app?.close();
  await env?.close();
  await probe?.close();
});

describe('TRK-1 / TRK-2 / TRK-8 / PLS-3 multipart bodies that end without their closing delimiter', () => {
  const audio = (bytes?: number): Part => ({ name: 'audioFile', value: wav(bytes), filename: 'song.wav' });
  const uploadFields = (title: string, v2: boolean): Part[] => [
    { name: 'title', value: title },
    { name: 'genre', value: 'Ambient' },
    ...(v2 ? [{ name: 'uploadId', value: randomUUID() }] : []),
  ];

  for (const [route, url, v2] of [
    ['TRK-1', '/api/tracks/upload', false],
    ['TRK-2', '/api/tracks/upload/v2', true],
  ] as const) {
    it(`${route} answers 400 VALIDATION_FAILED at once and stores no track and no object`, async () => {
      // A small file (one read) and one of 300 KB (many chunks, stored while the body arrives).
      for (const file of [audio(), audio(300_000)]) {
        for (const [name, body] of truncations(uploadFields(`Cut ${route}`, v2), file)) {
          await expectRefusedEitherWay('POST', url, body, name);
        }
      }
      expect(await app.infra.prisma.track.count({ where: { artistId: ARTIST } })).toBe(0);
      expect(await storedKeys()).toEqual([]);
    });
  }

  it('TRK-2 still accepts the same bytes with their closing delimiter, over the same socket path', async () => {
    const body = Buffer.concat([encode([...uploadFields('Whole', true), audio(300_000)]), Buffer.from(`--${BOUNDARY}--\r\n`)]);
    const answer = await send('POST', '/api/tracks/upload/v2', body, true);
    expect(answer.status, answer.body).toBe(201);
    const created = JSON.parse(answer.body) as { id: number };
    const row = await app.infra.prisma.track.findUniqueOrThrow({ where: { id: created.id } });
    expect(Number(row.originalSize)).toBe(audio(300_000).value.length);
    // Leaves this file's other checks an empty artist and bucket.
    await app.infra.prisma.track.delete({ where: { id: row.id } });
    await app.infra.storage.remove(await storedKeys());
  });

  it('TRK-8 answers 400 VALIDATION_FAILED at once and changes nothing', async () => {
    const track = await app.infra.prisma.track.create({
      data: {
        artistId: ARTIST,
        title: 'Kept',
        trackSlug: `kept-${randomUUID().slice(0, 8)}`,
        genre: 'Techno',
        releaseDate: new Date('2026-01-15T00:00:00.000Z'),
        secretToken: randomUUID(),
        uploadId: randomUUID(),
      },
    });
    const cover = await sharp({ create: { width: 40, height: 40, channels: 3, background: '#336699' } })
      .png()
      .toBuffer();
    try {
      for (const [name, body] of truncations([{ name: 'title', value: 'Changed' }], { name: 'coverImage', value: cover, filename: 'c.png' })) {
        await expectRefusedEitherWay('PATCH', `/api/tracks/${track.id}`, body, name);
      }
      const after = await app.infra.prisma.track.findUniqueOrThrow({ where: { id: track.id } });
      expect([after.title, after.coverKey]).toEqual(['Kept', null]);
      expect(await storedKeys()).toEqual([]);
    } finally {
      await app.infra.prisma.track.delete({ where: { id: track.id } });
    }
  });

  it('PLS-3 answers 400 VALIDATION_FAILED at once and creates no playlist', async () => {
    const cover = await sharp({ create: { width: 40, height: 40, channels: 3, background: '#993366' } })
      .png()
      .toBuffer();
    for (const [name, body] of truncations([{ name: 'title', value: 'Cut list' }], { name: 'coverArt', value: cover, filename: 'c.png' })) {
      await expectRefusedEitherWay('POST', '/api/playlists', body, name);
    }
    expect(await app.infra.prisma.playlist.count({ where: { ownerId: ARTIST } })).toBe(0);
    expect(await storedKeys()).toEqual([]);
  });
});
