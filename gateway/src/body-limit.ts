import { Transform, type Readable, type TransformCallback } from 'node:stream';
import type { BodyKind } from '@msp/contracts';

const MIB = 1024 * 1024;

/** docs/api.md "Body limits": JSON 1 MB, image routes 11 MB, upload routes audio limit + 11 MB (cover and fields). */
export function bodyLimitFor(kind: BodyKind, audioMaxBytes: number): number {
  switch (kind) {
    case 'image':
      return 11 * MIB;
    case 'upload':
      return audioMaxBytes + 11 * MIB;
    case 'json':
    case 'raw':
    case 'none':
      return MIB;
  }
}

/**
 * How the gateway takes a body, decided from the route and Content-Type before a byte is read:
 * multipart on image and upload routes streams through with its route limit; every other body
 * (JSON anywhere, the webhook's raw bytes) is read whole with the JSON limit of 1 MB, the same limit
 * the services apply, so that an oversized JSON body is a 413 from the gateway every time.
 */
export function bodyPolicy(kind: BodyKind, contentType: string | undefined, audioMaxBytes: number): { limit: number; stream: boolean } {
  const multipart = (contentType ?? '').toLowerCase().startsWith('multipart/');
  if (multipart && (kind === 'image' || kind === 'upload')) return { limit: bodyLimitFor(kind, audioMaxBytes), stream: true };
  return { limit: MIB, stream: false };
}

/** Reads a body whole up to `limit` bytes; rejects with BodyTooLargeError past it. */
export function collectBody(source: Readable, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let seen = 0;
    const onData = (chunk: Buffer) => {
      seen += chunk.length;
      if (seen > limit) {
        source.off('data', onData);
        source.resume();
        reject(new BodyTooLargeError(limit));
        return;
      }
      chunks.push(chunk);
    };
    source.on('data', onData);
    source.once('end', () => resolve(Buffer.concat(chunks, seen)));
    source.once('error', reject);
    // A client that goes away (or is timed out) mid-body: settle, so the request ends here.
    source.once('close', () => {
      if (!(source as Readable & { complete?: boolean }).complete) reject(new Error('client closed the request'));
    });
  });
}

export class BodyTooLargeError extends Error {
  readonly code = 'GW_BODY_TOO_LARGE';
  constructor(readonly limit: number) {
    super(`Request body exceeds ${limit} bytes.`);
    this.name = 'BodyTooLargeError';
  }
}

/** True when the declared Content-Length is already over the limit (checked before any byte is read). */
export function declaredTooLarge(contentLength: string | undefined, limit: number): boolean {
  if (contentLength === undefined) return false;
  const declared = Number(contentLength);
  return Number.isFinite(declared) && declared > limit;
}

/**
 * Passes the request body through untouched while counting it; a chunked body that grows past
 * the limit fails the stream, which aborts the upstream request (the proxy answers 413).
 * The source is unpiped and drained rather than destroyed so that the client's socket stays
 * usable for that 413.
 */
export function countingStream(source: Readable, limit: number): Readable {
  let seen = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback) {
      seen += chunk.length;
      if (seen > limit) {
        source.unpipe(counter);
        source.resume();
        callback(new BodyTooLargeError(limit));
        return;
      }
      callback(null, chunk);
    },
  });
  source.on('error', (err) => counter.destroy(err));
  source.on('aborted', () => counter.destroy(new Error('client aborted the request')));
  return source.pipe(counter);
}

/** Walks an error's cause chain (and AggregateError members) looking for a match. */
export function findInCauses(error: unknown, predicate: (candidate: Error & { code?: string }) => boolean): boolean {
  const seen = new Set<unknown>();
  const queue: unknown[] = [error];
  while (queue.length > 0) {
    const current = queue.shift();
    if (!(current instanceof Error) || seen.has(current)) continue;
    seen.add(current);
    if (predicate(current as Error & { code?: string })) return true;
    queue.push((current as { cause?: unknown }).cause);
    if (current instanceof AggregateError) queue.push(...current.errors);
  }
  return false;
}
