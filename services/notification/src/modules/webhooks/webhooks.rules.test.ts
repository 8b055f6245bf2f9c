import { createHmac } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { classify, nextAttempt, sendWebhook } from './webhooks.dispatcher.js';
import { addressAllowed, resolveTarget, urlProblem } from './webhooks.policy.js';
import { signWebhook, verifyWebhookSignature } from './webhooks.signature.js';

const prod = { production: true };
const dev = { production: false };

describe('APP-18 webhook URL policy (SSRF)', () => {
  it('refuses private, loopback, link-local and reserved addresses in production', () => {
    for (const a of [
      '127.0.0.1',
      '10.1.2.3',
      '172.16.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '::1',
      '::',
      'fe80::1',
      'fd00::1',
      '::ffff:127.0.0.1',
      '::ffff:7f00:1',
      '::ffff:10.0.0.1',
      '224.0.0.1',
    ]) {
      expect(addressAllowed(a, prod), a).toBe(false);
    }
    for (const a of ['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111', '::ffff:8.8.8.8']) expect(addressAllowed(a, prod), a).toBe(true);
  });

  it('allows only 127.0.0.1 among them in development', () => {
    expect(addressAllowed('127.0.0.1', dev)).toBe(true);
    expect(addressAllowed('::ffff:127.0.0.1', dev)).toBe(true);
    for (const a of ['127.0.0.2', '::1', '10.0.0.1', '192.168.0.10', '169.254.169.254']) expect(addressAllowed(a, dev), a).toBe(false);
    expect(addressAllowed('8.8.8.8', dev)).toBe(true);
  });

  it('checks the scheme and form before DNS', () => {
    expect(urlProblem('http://example.com/hook', prod)).toMatch(/https/);
    expect(urlProblem('https://example.com/hook', prod)).toBeNull();
    expect(urlProblem('https://example.com:443/hook', prod)).toBeNull();
    expect(urlProblem('https://example.com:8443/hook', prod)).toMatch(/443/);
    expect(urlProblem('http://127.0.0.1:9/hook', dev)).toBeNull();
    expect(urlProblem('ftp://example.com/hook', dev)).not.toBeNull();
    expect(urlProblem('https://user:pw@example.com/', prod)).toMatch(/credentials/);
    expect(urlProblem('not a url', prod)).not.toBeNull();
  });

  it('checks every address a name resolves to, and pins the one it answers', async () => {
    const resolver = (answers: { address: string; family: number }[]) => (async () => answers) as never;
    await expect(resolveTarget('https://hooks.example.com/x', prod, resolver([{ address: '93.184.216.34', family: 4 }]))).resolves.toMatchObject({
      address: '93.184.216.34',
      family: 4,
    });
    // A name with one public and one private address is refused (DNS rebinding, split answers).
    await expect(
      resolveTarget(
        'https://hooks.example.com/x',
        prod,
        resolver([
          { address: '93.184.216.34', family: 4 },
          { address: '10.0.0.5', family: 4 },
        ]),
      ),
    ).rejects.toThrow(/private/);
    await expect(resolveTarget('https://localhost/x', prod, resolver([{ address: '127.0.0.1', family: 4 }]))).rejects.toThrow(/private/);
    await expect(resolveTarget('http://[::1]:80/x', dev)).rejects.toThrow(/127\.0\.0\.1/);
    await expect(resolveTarget('http://127.0.0.1:80/x', dev)).resolves.toMatchObject({ address: '127.0.0.1' });
  });
});

describe('webhook signature', () => {
  it('is t=<unix>,v1=<hex HMAC-SHA256(secret, t.body)> and verifies', () => {
    const header = signWebhook('whsec_x', '{"a":1}', 1_700_000_000);
    const mac = createHmac('sha256', 'whsec_x').update('1700000000.{"a":1}').digest('hex');
    expect(header).toBe(`t=1700000000,v1=${mac}`);
    expect(verifyWebhookSignature('whsec_x', '{"a":1}', header, 1_700_000_010)).toBe(true);
    expect(verifyWebhookSignature('whsec_y', '{"a":1}', header, 1_700_000_010)).toBe(false);
    expect(verifyWebhookSignature('whsec_x', '{"a":2}', header, 1_700_000_010)).toBe(false);
    // Too old: a replayed delivery is refused.
    expect(verifyWebhookSignature('whsec_x', '{"a":1}', header, 1_700_000_000 + 301)).toBe(false);
    expect(verifyWebhookSignature('whsec_x', '{"a":1}', undefined)).toBe(false);
  });
});

describe('webhook retries', () => {
  it('retries 5xx, 408, 429 and no answer; removes on 410; fails other answers for good', () => {
    expect(classify(200)).toBe('delivered');
    expect(classify(204)).toBe('delivered');
    expect(classify(410)).toBe('gone');
    for (const s of [500, 502, 503, 408, 429, null]) expect(classify(s)).toBe('retry');
    for (const s of [301, 400, 401, 404]) expect(classify(s)).toBe('fail');
  });

  it('backs off exponentially within the retry window, then gives up', () => {
    const o = { backoffBaseMs: 1000, backoffMaxMs: 3_600_000, retryWindowMs: 3 * 86_400_000 };
    const created = new Date(0);
    const d1 = nextAttempt(1, created, 0, o)!.getTime();
    const d4 = nextAttempt(4, created, 0, o)!.getTime();
    expect(d1).toBeGreaterThanOrEqual(800);
    expect(d1).toBeLessThanOrEqual(1000);
    expect(d4).toBeGreaterThanOrEqual(6400);
    expect(d4).toBeLessThanOrEqual(8000);
    expect(nextAttempt(30, created, 0, o)!.getTime()).toBeLessThanOrEqual(3_600_000);
    expect(nextAttempt(5, created, 3 * 86_400_000, o)).toBeNull();
  });
});

describe('webhook request', () => {
  it('connects to the checked address (pinned), keeps the host name, signs, and gives up after the timeout', async () => {
    const seen: { host?: string; signature?: string; body: string }[] = [];
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        seen.push({ host: req.headers.host, signature: req.headers['webhook-signature'] as string, body });
        if (req.url === '/slow') return; // never answers
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    try {
      // The name resolves (through the test's resolver) to 127.0.0.1 only: checked, then used.
      const resolve = (async () => [{ address: '127.0.0.1', family: 4 }]) as never;
      const ok = await sendWebhook(`http://hooks.example.test:${port}/ok`, '{"id":"1"}', 'whsec_t', { timeoutMs: 2000, policy: dev, resolve });
      expect(ok).toMatchObject({ status: 204, error: null });
      expect(seen[0]).toMatchObject({ host: `hooks.example.test:${port}`, body: '{"id":"1"}' });
      expect(verifyWebhookSignature('whsec_t', '{"id":"1"}', seen[0]!.signature)).toBe(true);

      const refused = await sendWebhook(`http://internal.example.test:${port}/ok`, '{}', 'whsec_t', {
        timeoutMs: 2000,
        policy: dev,
        resolve: (async () => [{ address: '10.0.0.7', family: 4 }]) as never,
      });
      expect(refused).toMatchObject({ status: null, error: expect.stringMatching(/private/) });
      expect(seen).toHaveLength(1);

      const slow = await sendWebhook(`http://127.0.0.1:${port}/slow`, '{}', 'whsec_t', { timeoutMs: 300, policy: dev });
      expect(slow).toMatchObject({ status: null, error: expect.stringMatching(/timed out/) });
      expect(slow.latencyMs).toBeLessThan(2000);
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });
});
