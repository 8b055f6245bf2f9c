import type { IncomingHttpHeaders } from 'node:http';
import { AppError } from '@msp/errors';

/**
 * Multipart bodies whose bytes end (Content-Length complete) before the closing delimiter
 * `--boundary--`: no part list is complete without it, so every multipart route of the fleet
 * answers 400 VALIDATION_FAILED as soon as the request body ends, never a 500 or a wait for the
 * body idle timeout.
 *
 * Why a wrapper: @fastify/multipart ends its parts iterator quietly on busboy's "Unexpected end of
 * multipart data" (a truncated body reads like a complete one with fewer parts), and destroys the
 * file stream of the part being read without an error, so a consumer piping that stream waits
 * for an 'end' that never comes. `multipartParts` watches the request's own bytes for the closing
 * delimiter; when the body ends without it, the file streams still being read fail with the 400 and
 * the iteration fails with it too (also when the next part is being awaited). A client that goes
 * away mid-body fails them likewise, with 400 MALFORMED_REQUEST (nobody reads that answer, but
 * the handler ends at once and cleans up).
 */

/** The request as the parser reads it (Node's IncomingMessage). */
export interface MultipartBody {
  readonly headers: IncomingHttpHeaders;
  readonly complete: boolean;
  readonly readableEnded: boolean;
  readonly destroyed: boolean;
  on(event: 'data', listener: (chunk: Buffer) => void): unknown;
  on(event: 'end' | 'close' | 'error', listener: () => void): unknown;
  off(event: 'data', listener: (chunk: Buffer) => void): unknown;
  off(event: 'end' | 'close' | 'error', listener: () => void): unknown;
}

/** A part as @fastify/multipart yields it: a file part carries its byte stream in `file`. */
export interface MultipartPartLike {
  type: 'file' | 'field';
}

interface PartStream {
  readonly readableEnded: boolean;
  readonly destroyed: boolean;
  destroy(error?: Error): unknown;
  resume(): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
  once(event: 'end' | 'close', listener: () => void): unknown;
}

/** The boundary parameter of a multipart Content-Type (case kept: boundaries are case-sensitive). */
export function multipartBoundary(contentType: string | undefined): string | null {
  if (!contentType) return null;
  const match = /;\s*boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  return match?.[1] ?? match?.[2] ?? null;
}

/**
 * Finds the closing delimiter (CRLF `--boundary--`, or `--boundary--` at the very start) in a body
 * fed chunk by chunk, keeping only the last few bytes between chunks.
 */
export class ClosingDelimiterScanner {
  private readonly needle: Buffer;
  /** The end of what was fed so far, shorter than the needle; a virtual CRLF before the body. */
  private tail: Buffer = Buffer.from('\r\n');
  found = false;

  constructor(boundary: string) {
    this.needle = Buffer.from(`\r\n--${boundary}--`, 'latin1');
  }

  feed(chunk: Buffer): boolean {
    if (this.found || chunk.length === 0) return this.found;
    const keep = this.needle.length - 1;
    const junction = Buffer.concat([this.tail, chunk.subarray(0, keep)]);
    if (junction.includes(this.needle) || chunk.includes(this.needle)) {
      this.found = true;
      this.tail = Buffer.alloc(0);
      return true;
    }
    const joined = chunk.length >= keep ? chunk.subarray(chunk.length - keep) : Buffer.concat([this.tail, chunk]).subarray(-keep);
    this.tail = Buffer.from(joined);
    return false;
  }
}

export const TRUNCATED_MULTIPART_MESSAGE = 'The multipart body ended before its closing boundary.';

function truncated(): AppError {
  return AppError.validation([{ field: 'body', message: TRUNCATED_MULTIPART_MESSAGE }], TRUNCATED_MULTIPART_MESSAGE);
}

function gone(): AppError {
  return new AppError('MALFORMED_REQUEST', 'The request ended before its body was complete.');
}

function fileOf(part: MultipartPartLike): PartStream | null {
  const file = (part as { file?: unknown }).file;
  return part.type === 'file' && file && typeof file === 'object' ? (file as PartStream) : null;
}

/** A part nobody will read: its bytes are let through so the parser is never held up by it. */
function release(part: MultipartPartLike): void {
  const file = fileOf(part);
  if (!file) return;
  file.on('error', () => undefined); // the request already failed; this part's error adds nothing
  file.resume();
}

/**
 * The parts of a multipart request, failing with 400 VALIDATION_FAILED when the body ends without
 * its closing delimiter (see above). `open` starts the parser, e.g. `() => request.parts(options)`;
 * `body` is the raw request (`request.raw`). Parse errors of the parser itself pass through.
 */
export function multipartParts<P extends MultipartPartLike>(body: MultipartBody, open: () => AsyncIterable<P>): AsyncIterableIterator<P> {
  const boundary = multipartBoundary(body.headers['content-type']);
  let scanner = boundary === null ? null : new ClosingDelimiterScanner(boundary);
  let inner: AsyncIterator<P> | null = null;
  let failure: AppError | null = null;
  const failed = (): AppError | null => failure;
  let ended = false;
  let wake: ((error: AppError) => void) | null = null;
  const reading = new Set<PartStream>();

  const detach = () => {
    body.off('data', onData);
    body.off('end', onEnd);
    body.off('close', onClose);
    body.off('error', onClose);
  };
  const fail = (error: AppError) => {
    if (failure) return;
    failure = error;
    detach();
    for (const file of reading) if (!file.readableEnded && !file.destroyed) file.destroy(error);
    reading.clear();
    wake?.(error);
  };
  function onData(chunk: Buffer) {
    if (scanner?.feed(chunk)) body.off('data', onData);
  }
  function onEnd() {
    ended = true;
    if (scanner && !scanner.found) fail(truncated());
    else detach();
  }
  function onClose() {
    if (!ended && !body.complete) fail(gone());
    else detach();
  }

  /** Listens from the parser's first read on (the request's bytes flow from the next tick on). */
  const watch = () => {
    if (body.readableEnded) {
      ended = true;
      scanner = null; // already read by someone else: its bytes cannot be checked here
      return;
    }
    if (body.destroyed && !body.complete) return fail(gone());
    if (scanner) body.on('data', onData);
    body.on('end', onEnd);
    body.on('close', onClose);
    body.on('error', onClose);
  };

  const settleLate = (pending: Promise<IteratorResult<P>>) => {
    pending.then(
      (step) => {
        if (!step.done) release(step.value);
      },
      () => undefined, // the request already failed with `failure`; the parser's own error adds nothing
    );
  };

  const iterator: AsyncIterableIterator<P> = {
    [Symbol.asyncIterator]() {
      return iterator;
    },
    async next(): Promise<IteratorResult<P>> {
      const before = failed();
      if (before) throw before;
      const first = !inner;
      inner ??= open()[Symbol.asyncIterator]();
      const pending = inner.next();
      if (first) watch();
      const early = failed();
      if (early) {
        settleLate(pending);
        throw early;
      }
      const woken = new Promise<never>((_, reject) => (wake = reject));
      woken.catch(() => undefined); // observed through the race below
      let step: IteratorResult<P>;
      try {
        step = await Promise.race([pending, woken]);
      } catch (err) {
        const cause = failed();
        if (cause) {
          settleLate(pending);
          throw cause;
        }
        detach();
        throw err;
      } finally {
        wake = null;
      }
      const late = failed();
      if (late) {
        if (!step.done) release(step.value);
        throw late;
      }
      if (step.done) {
        // The parser stops quietly at the end of the bytes: without the closing delimiter the
        // list of parts is not complete.
        if (scanner && !scanner.found) {
          const error = truncated();
          fail(error);
          throw error;
        }
        detach();
        return step;
      }
      const file = fileOf(step.value);
      if (file && !file.readableEnded) {
        reading.add(file);
        const done = () => reading.delete(file);
        file.once('end', done);
        file.once('close', done);
      }
      return step;
    },
    async return(value?: unknown): Promise<IteratorResult<P>> {
      detach();
      // Not awaited: a parser waiting for bytes would hold the caller up; how it stops does not matter.
      if (inner?.return) inner.return(value).catch(() => undefined); // the caller stopped reading; the parser's error adds nothing
      return { done: true, value: undefined as unknown as P };
    },
  };
  return iterator;
}
