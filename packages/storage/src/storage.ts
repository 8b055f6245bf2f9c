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

/** S3 parts are ≥ 5 MiB except the last; 8 MiB keeps memory per upload at about one part. */
export const PART_BYTES = 8 * 1024 * 1024;

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

  /**
   * Writes a stream of unknown length with bounded memory: an S3 multipart upload through the
   * client's public multipart calls, one part (`PART_BYTES`) buffered at a time and the source
   * pulled only as fast as parts are stored; a single PUT when the whole stream fits in one part.
   * An unfinished multipart upload is aborted on error. Returns the bytes written.
   *
   * Not `putObject(stream)`: without a size the minio client sizes parts for a 5 TiB object
   * (~500 MiB buffered per part) and first lists incomplete uploads, which s3rver lacks.
   */
  async putStream(key: string, source: AsyncIterable<Buffer>, contentType: string): Promise<number> {
    const { client, bucket } = this;
    let uploadId: string | null = null;
    const etags: Array<{ part: number; etag: string }> = [];
    // One part buffer, reused: a part is fully sent before the next byte is copied in.
    const part = Buffer.allocUnsafe(PART_BYTES);
    let filled = 0;
    let total = 0;

    const sendPart = async (chunk: Buffer) => {
      uploadId ??= await client.initiateNewMultipartUpload(bucket, key, { 'Content-Type': contentType });
      const partNumber = etags.length + 1;
      const { etag } = await client.uploadPart(
        { bucketName: bucket, objectName: key, uploadID: uploadId, partNumber, headers: { 'Content-Length': String(chunk.length) } },
        chunk,
      );
      etags.push({ part: partNumber, etag });
    };

    try {
      for await (const chunk of source) {
        let offset = 0;
        while (offset < chunk.length) {
          const n = Math.min(chunk.length - offset, PART_BYTES - filled);
          chunk.copy(part, filled, offset, offset + n);
          filled += n;
          offset += n;
          total += n;
          if (filled === PART_BYTES) {
            await sendPart(part);
            filled = 0;
          }
        }
      }
      if (!uploadId) {
        await this.put(key, Buffer.from(part.subarray(0, filled)), contentType, filled);
        return total;
      }
      if (filled > 0) await sendPart(part.subarray(0, filled));
      await client.completeMultipartUpload(bucket, key, uploadId, etags);
      return total;
    } catch (err) {
      // The original error is rethrown; an upload left unaborted expires with the bucket's lifecycle.
      if (uploadId) await client.abortMultipartUpload(bucket, key, uploadId).catch(() => undefined);
      throw err;
    }
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
