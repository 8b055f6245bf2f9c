/**
 * One request, one trace: an upload through the gateway is followed by a single trace id in the
 * logs of the gateway, catalog (request and the media events it consumes), media-processing (the
 * upload event and the job) and notification (the upload-status event), and by the request id
 * (`requestId`, the same label everywhere) as correlation id across the NATS hops.
 * Log capture: every process of the fleet logs to @msp/http's log destination, here an array.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setLogDestination } from '@msp/http';
import { waitFor } from '@msp/testing';
import type { buildApp as buildIdentity } from '@msp/identity';
import type { buildApp as buildMedia } from '@msp/media-processing';
import { Fleet } from './fleet.js';

const execFileAsync = promisify(execFile);

interface LogLine {
  service?: string;
  msg?: string;
  traceId?: string;
  spanId?: string;
  requestId?: string;
  reqId?: string;
  consumer?: string;
  type?: string;
  [key: string]: unknown;
}
const lines: LogLine[] = [];
setLogDestination({
  write(line: string) {
    try {
      lines.push(JSON.parse(line) as LogLine);
    } catch {
      // not JSON: not ours
    }
  },
});

const fleet = new Fleet({ logs: true });
const debug = { LOG_LEVEL: 'debug' };
let dir: string;
let token: string;

beforeAll(async () => {
  await fleet.start(
    { LOG_LEVEL: 'info' },
    {
      identity: debug,
      catalog: { ...debug, UPLOAD_WAIT_MS: '30000' },
      'media-processing': { ...debug, JOB_POLL_MS: '200' },
      notification: debug,
    },
  );
  dir = await mkdtemp(path.join(os.tmpdir(), 'e2e-trace-'));
  const res = await fleet.fetch('/api/auth/register/local', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'trace@example.com', displayName: 'Trace Me', password: 'a long enough secret', dateOfBirth: '1990-02-03' }),
  });
  expect(res.status).toBe(201);
  const user = (await res.json()) as { userId: number; username: string };
  const identity = fleet.apps.get('identity') as Awaited<ReturnType<typeof buildIdentity>>;
  token = await identity.keys.sign(
    { sub: String(user.userId), username: user.username, role: 'ARTIST', tier: 'FREE', sid: randomUUID(), jti: randomUUID() },
    1800,
    'msp-identity',
  );
  // catalog knows the user (user projection) before it accepts an upload.
  await waitFor(() => lines.some((l) => l.service === 'catalog' && l.msg === 'event handled' && l.type === 'identity.user.registered.v1') || undefined, {
    timeoutMs: 15_000,
  });
}, 90_000);

afterAll(async () => {
  if (process.env.TRACE_DUMP) (await import('node:fs')).writeFileSync(process.env.TRACE_DUMP, JSON.stringify(lines, null, 0).replace(/},{/g, '},\n{'));
  await fleet.close();
  setLogDestination(undefined);
  if (dir) await rm(dir, { recursive: true, force: true });
}, 60_000);

describe('one trace per request', () => {
  it('follows an upload through gateway, catalog, media-processing and notification with one trace id and one request id', async () => {
    const ffmpeg = (fleet.apps.get('media-processing') as Awaited<ReturnType<typeof buildMedia>>).media.ffmpeg.path;
    const file = path.join(dir, 'tone.wav');
    await execFileAsync(ffmpeg, ['-hide_banner', '-loglevel', 'error', '-f', 'lavfi', '-i', 'sine=frequency=440:sample_rate=8000:duration=2', '-y', file]);
    const form = new FormData();
    form.append('title', 'Traced');
    form.append('genre', 'E2E Trace');
    form.append('audioFile', new Blob([await readFile(file)]), 'audio.wav');
    const requestId = `trace-${randomUUID()}`;
    const res = await fetch(`${fleet.gatewayUrl}/api/tracks/upload`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'x-request-id': requestId },
      body: form,
      signal: AbortSignal.timeout(40_000),
    });
    expect(res.status, await res.clone().text()).toBe(201);
    expect(res.headers.get('x-request-id')).toBe(requestId);

    // The gateway's lines of this request carry its trace id.
    const gatewayLine = await waitFor(() => lines.find((l) => l.service === 'gateway' && l.requestId === requestId && l.traceId), {
      timeoutMs: 5000,
      message: 'a gateway log line of the request with a trace id',
    });
    const traceId = gatewayLine.traceId!;
    expect(traceId).toMatch(/^[0-9a-f]{32}$/);

    // notification's catalog-refs consumer handles the publication that ends processing: wait for it.
    await waitFor(() => lines.some((l) => l.service === 'notification' && l.traceId === traceId && l.type === 'catalog.track.published.v1') || undefined, {
      timeoutMs: 20_000,
      message: 'notification handled the publication in the same trace',
    });
    const ofTrace = lines.filter((l) => l.traceId === traceId);
    const services = new Set(ofTrace.map((l) => l.service));
    for (const service of ['gateway', 'catalog', 'media-processing', 'notification'])
      expect(services, `${service} logged in trace ${traceId}`).toContain(service);
    // media-processing: the upload event and the job that ran later, outside the consumer.
    expect(ofTrace.some((l) => l.service === 'media-processing' && l.type === 'catalog.track.uploaded.v1')).toBe(true);
    expect(ofTrace.some((l) => l.service === 'media-processing' && l.msg === 'job finished')).toBe(true);
    // catalog: the request, and the media worker's events coming back.
    expect(ofTrace.some((l) => l.service === 'catalog' && l.type === 'media-processing.track.processed.v1')).toBe(true);

    // One label, one id: every line of the path names the request id under `requestId`. (The
    // gateway's JWKS fetch from identity is in the trace too, but serves every request: its own id.)
    for (const line of ofTrace.filter((l) => l.service !== 'identity')) {
      expect(line.reqId, `${line.service}: ${line.msg}`).toBeUndefined();
      expect(line.requestId, `${line.service}: ${line.msg}`).toBe(requestId);
    }
    // No other request's lines in this trace.
    expect(lines.filter((l) => l.requestId === requestId && l.traceId && l.traceId !== traceId)).toEqual([]);
  });
});
