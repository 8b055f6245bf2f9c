/**
 * Walks the compose fleet as a user and an operator would, through the published gateway:
 *   health → register → the verification mail arrives in Mailpit → verify → login → upload a track
 *   and wait for processing → log in as the compose admin → one trace of the upload in Jaeger,
 *   spanning gateway, catalog, media-processing and notification.
 * Run by scripts/compose-e2e.sh after `docker compose up`; by hand: `npx tsx scripts/compose-smoke.ts`.
 * GATEWAY_URL (http://localhost:8080), MAILPIT_URL (http://localhost:8025), JAEGER_URL (http://localhost:16686).
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';

const gateway = process.env.GATEWAY_URL ?? 'http://localhost:8080';
const mailpit = process.env.MAILPIT_URL ?? 'http://localhost:8025';
const jaeger = process.env.JAEGER_URL ?? 'http://localhost:16686';

function step(name: string): void {
  console.log(`- ${name}`);
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => undefined); // not there yet: poll again until the deadline
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out: ${what}`);
    await new Promise((r) => setTimeout(r, 1000));
  }
}

async function json(res: Response, expected: number): Promise<Record<string, unknown>> {
  const text = await res.text();
  if (res.status !== expected) throw new Error(`${res.url}: expected ${expected}, got ${res.status}: ${text.slice(0, 500)}`);
  return text ? (JSON.parse(text) as Record<string, unknown>) : {};
}

const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${gateway}${url}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

function ffmpegBinary(): string {
  if (existsSync('/usr/bin/ffmpeg')) return '/usr/bin/ffmpeg';
  const require = createRequire(path.resolve('services/media-processing/package.json'));
  return (require('@ffmpeg-installer/ffmpeg') as { path: string }).path;
}

step('GET /api/health: every service ready');
await until('fleet healthy', async () => ((await fetch(`${gateway}/api/health`)).status === 200 ? true : undefined), 180_000);

const email = `smoke-${randomUUID().slice(0, 8)}@example.com`;
const password = 'a long enough smoke secret';
step(`register ${email}; the verification mail leaves through SMTP (Mailpit)`);
await json(await post('/api/auth/register/local', { email, displayName: 'Smoke Test', password, dateOfBirth: '1990-02-03' }), 201);
const token = await until('verification mail', async () => {
  const list = (await (await fetch(`${mailpit}/api/v1/search?query=${encodeURIComponent(`to:${email}`)}`)).json()) as { messages?: { ID: string }[] };
  const id = list.messages?.[0]?.ID;
  if (!id) return undefined;
  const message = (await (await fetch(`${mailpit}/api/v1/message/${id}`)).json()) as { Text?: string; HTML?: string };
  return /[?&]token=([^\s"&<]+)/.exec(`${message.Text ?? ''} ${message.HTML ?? ''}`)?.[1];
});
await json(await post('/api/auth/verify-email', { token: decodeURIComponent(token) }), 200);

step('log in');
const login = await json(await post('/api/auth/login/local', { email, password }), 200);
const bearer = { authorization: `Bearer ${String(login.accessToken)}` };

step('upload a 3-second track and wait for processing (201 FINISHED)');
const dir = mkdtempSync(path.join(os.tmpdir(), 'smoke-'));
const wav = path.join(dir, 'tone.wav');
execFileSync(ffmpegBinary(), ['-hide_banner', '-loglevel', 'error', '-f', 'lavfi', '-i', 'sine=frequency=440:sample_rate=22050:duration=3', '-y', wav]);
const form = new FormData();
form.append('title', 'Smoke');
form.append('genre', 'Electronic');
form.append('audioFile', new Blob([readFileSync(wav)]), 'tone.wav');
const requestId = `smoke-${randomUUID()}`;
const uploaded = await json(
  await fetch(`${gateway}/api/tracks/upload`, { method: 'POST', headers: { ...bearer, 'x-request-id': requestId }, body: form }),
  201,
);
if (uploaded.state !== 'FINISHED') throw new Error(`upload state ${String(uploaded.state)}`);

step('log in as the compose admin (ADMIN_ACCOUNTS)');
await json(await post('/api/auth/login/local', { email: 'admin@localhost', password: 'compose-admin-password' }), 200);

step('one trace of the upload in Jaeger, across gateway, catalog, media-processing and notification');
await until(
  'trace in Jaeger',
  async () => {
    const found = (await (await fetch(`${jaeger}/api/traces?service=gateway&operation=&limit=50&lookback=1h`)).json()) as {
      data?: { spans: { tags: { key: string; value: unknown }[]; processID: string }[]; processes: Record<string, { serviceName: string }> }[];
    };
    const trace = found.data?.find((t) => t.spans.some((s) => s.tags.some((tag) => String(tag.value).includes('/api/tracks/upload'))));
    if (!trace) return undefined;
    const services = new Set(Object.values(trace.processes).map((p) => p.serviceName));
    return ['gateway', 'catalog', 'media-processing', 'notification'].every((s) => services.has(s)) ? true : undefined;
  },
  60_000,
);

console.log('compose smoke: ok');
