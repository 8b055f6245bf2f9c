import { Transform, type Readable, type TransformCallback } from 'node:stream';
import type { BodyKind } from '@msp/contracts';

const MIB = 1024 * 1024;

/** API.md §6: JSON 1 MB, image routes 11 MB, upload routes audio limit + 11 MB (cover and fields). */
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
