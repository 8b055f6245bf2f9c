import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startS3rver, type S3rverHandle } from '../../testing/src/s3rver.ts';
import { ObjectStorage, PART_BYTES } from '../src/index.js';

let s3: S3rverHandle;
let storage: ObjectStorage;

beforeAll(async () => {
  s3 = await startS3rver();
  storage = new ObjectStorage({ endpoint: s3.endpoint, region: 'us-east-1', accessKey: s3.accessKey, secretKey: s3.secretKey, bucket: 'put-stream' });
  await storage.ensureBucket();
});
afterAll(() => s3?.close());

async function* chunks(total: number, size: number): AsyncIterable<Buffer> {
  for (let sent = 0; sent < total; sent += size) yield Buffer.alloc(Math.min(size, total - sent), sent % 251);
}

async function readAll(stream: Readable): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const c of stream) parts.push(c as Buffer);
  return Buffer.concat(parts);
}

describe("ObjectStorage.putStream: multipart through the minio client's public API", () => {
  it('writes a stream longer than one part as a multipart upload, byte for byte', async () => {
    const total = PART_BYTES * 2 + 12_345;
    expect(await storage.putStream('big.bin', chunks(total, 1024 * 1024 + 7), 'application/octet-stream')).toBe(total);
    const stat = await storage.stat('big.bin');
    expect(stat?.size).toBe(total);
    const back = await readAll(await storage.get('big.bin'));
    const expected = await readAll(Readable.from(chunks(total, 1024 * 1024 + 7)));
    expect(back.equals(expected)).toBe(true);
  });

  it('writes a short stream with one PUT, and an empty one', async () => {
    expect(await storage.putStream('small.txt', chunks(10, 4), 'text/plain')).toBe(10);
    expect((await storage.stat('small.txt'))?.contentType).toBe('text/plain');
    expect(await storage.putStream('empty.txt', chunks(0, 4), 'text/plain')).toBe(0);
  });

  it('aborts the multipart upload and rethrows when the source fails', async () => {
    async function* failing(): AsyncIterable<Buffer> {
      yield Buffer.alloc(PART_BYTES + 1);
      throw new Error('client went away');
    }
    await expect(storage.putStream('broken.bin', failing(), 'application/octet-stream')).rejects.toThrow('client went away');
    expect(await storage.stat('broken.bin')).toBeNull();
  });
});
