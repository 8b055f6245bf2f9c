import { createHash } from 'node:crypto';
import type { ObjectStorage } from '@msp/storage';

/** S3 parts are ≥ 5 MiB except the last; 8 MiB keeps memory per upload at about one part. */
export const PART_BYTES = 8 * 1024 * 1024;

/**
 * Writes a stream of unknown length to object storage with bounded memory: S3 multipart upload,
 * one part buffered at a time (the source is pulled only as fast as parts are stored), a single
 * PUT when the whole stream fits in one part. An unfinished multipart upload is aborted on error.
 *
 * Why not `putObject(stream)`: without a size the minio client sizes parts for a 5 TiB object
 * (~500 MiB buffered per part) and first lists incomplete uploads, which s3rver does not implement.
 */
export async function multipartPut(storage: ObjectStorage, key: string, source: AsyncIterable<Buffer>, contentType: string): Promise<number> {
  const { client, bucket } = storage;
  let uploadId: string | null = null;
  const etags: Array<{ part: number; etag: string }> = [];
  // One part buffer, reused: a part is fully sent before the next byte is copied in.
  const part = Buffer.allocUnsafe(PART_BYTES);
  let filled = 0;
  let total = 0;

  const sendPart = async (chunk: Buffer) => {
    uploadId ??= await client.initiateNewMultipartUpload(bucket, key, { 'Content-Type': contentType });
    const number = etags.length + 1;
    const res = await client.makeRequestAsyncOmit(
      {
        method: 'PUT',
        bucketName: bucket,
        objectName: key,
        query: new URLSearchParams({ partNumber: String(number), uploadId }).toString(),
        headers: { 'Content-Length': String(chunk.length), 'Content-MD5': createHash('md5').update(chunk).digest('base64') },
      },
      chunk,
    );
    etags.push({ part: number, etag: String(res.headers.etag ?? '').replace(/"/g, '') });
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
      await storage.put(key, Buffer.from(part.subarray(0, filled)), contentType, filled);
      return total;
    }
    if (filled > 0) await sendPart(part.subarray(0, filled));
    await client.completeMultipartUpload(bucket, key, uploadId, etags);
    return total;
  } catch (err) {
    if (uploadId) await client.abortMultipartUpload(bucket, key, uploadId).catch(() => undefined); // the upload failed already (that error is thrown); an unaborted part set expires in the bucket
    throw err;
  }
}
