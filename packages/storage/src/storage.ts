import type { Readable } from 'node:stream';
import { Client } from 'minio';

export interface StorageOptions {
  endpoint: string;
  region: string;
  accessKey: string;
  secretKey: string;
  bucket: string;
}

export interface StoredObject {
  size: number;
  contentType: string;
  etag: string;
  lastModified: Date;
}

/**
 * Object storage over the S3 API (MinIO in clusters, s3rver on a laptop and in tests).
 * Everything streams: nothing is read whole into memory.
 */
export class ObjectStorage {
  readonly client: Client;
  readonly bucket: string;

  constructor(private readonly options: StorageOptions) {
    const url = new URL(options.endpoint);
    this.client = new Client({
      endPoint: url.hostname,
      port: url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80,
      useSSL: url.protocol === 'https:',
      accessKey: options.accessKey,
      secretKey: options.secretKey,
      region: options.region,
      pathStyle: true,
    });
    this.bucket = options.bucket;
  }

  async ensureBucket(): Promise<void> {
    const exists = await this.client.bucketExists(this.bucket);
    if (exists) return;
    try {
      await this.client.makeBucket(this.bucket, this.options.region);
    } catch (err) {
      // A concurrent replica may have created it.
      if (!(await this.client.bucketExists(this.bucket))) throw err;
    }
  }

  /** Readiness: the bucket answers. */
  async check(): Promise<void> {
    if (!(await this.client.bucketExists(this.bucket))) throw new Error(`bucket ${this.bucket} missing`);
  }

  async put(key: string, body: Readable | Buffer | string, contentType: string, size?: number): Promise<void> {
    await this.client.putObject(this.bucket, key, body, size, { 'Content-Type': contentType });
  }

  async stat(key: string): Promise<StoredObject | null> {
    try {
      const s = await this.client.statObject(this.bucket, key);
      return {
        size: s.size,
        etag: s.etag,
        lastModified: s.lastModified,
        contentType: String(s.metaData?.['content-type'] ?? 'application/octet-stream'),
      };
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (code === 'NotFound' || code === 'NoSuchKey') return null;
      throw err;
    }
  }

  async get(key: string, range?: { start: number; end: number }): Promise<Readable> {
    if (range) return this.client.getPartialObject(this.bucket, key, range.start, range.end - range.start + 1);
    return this.client.getObject(this.bucket, key);
  }

  async remove(keys: string[]): Promise<void> {
    if (keys.length === 0) return;
    await this.client.removeObjects(this.bucket, keys);
  }

  async list(prefix: string): Promise<string[]> {
    const keys: string[] = [];
    const stream = this.client.listObjectsV2(this.bucket, prefix, true);
    for await (const item of stream as AsyncIterable<{ name?: string }>) {
      if (item.name) keys.push(item.name);
    }
    return keys;
  }

  async presignedGet(key: string, expirySeconds: number): Promise<string> {
    return this.client.presignedGetObject(this.bucket, key, expirySeconds);
  }
}
