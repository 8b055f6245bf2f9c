import { randomUUID } from 'node:crypto';
import { Transform, type Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import type { Multipart } from '@fastify/multipart';
import { AppError } from '@msp/errors';
import type { ObjectStorage } from '@msp/storage';
import { SNIFF_BYTES, sniffAudio, sniffImage, type AudioFormat, type ImageFormat } from './audio-format.js';

export interface StoredFile<F extends string> {
  key: string;
  format: F;
  size: number;
}

export interface ReceivedUpload {
  fields: Record<string, string>;
  audio: StoredFile<AudioFormat> | null;
  cover: StoredFile<ImageFormat> | null;
  /**
   * Every key written, to delete when the upload is refused later (probe, validation, conflict). A
   * store that failed (the part or the object store failed) wrote nothing: putStream aborts it.
   */
  keys: string[];
}

/** What an upload needs of object storage (unit tests give a fake). */
export type UploadStorage = Pick<ObjectStorage, 'putStream' | 'remove'>;

export interface ReceiveOptions {
  storage: UploadStorage;
  audioMaxBytes: number;
  coverMaxBytes: number;
  /** Form part names of the audio and the image. */
  audioField: string;
  coverField: string;
}

const FIELD_MAX_BYTES = 256 * 1024;

/**
 * What an upload is read from, without the web framework: the declared length and its multipart
 * parts. The route builds it; its parts fail (AppError) when the body ends before its closing
 * delimiter or the client goes away mid-body (`multipartParts` of @msp/http), and so does the file
 * stream of the part being read then.
 */
export interface UploadSource {
  /** Content-Length as declared (NaN when absent). */
  contentLength: number;
  parts(options: { limits: { fieldSize: number; fields: number; files: number; parts: number; fileSize: number } }): AsyncIterable<Multipart>;
}

/**
 * Streams one file part into object storage while counting and sniffing it. A file that breaks a
 * rule is not streamed further: the guard swallows the rest (the request is still read to its end,
 * so the answer reaches the client cleanly) and the partial object is deleted by the caller.
 */
async function storeGuarded<F extends string>(
  source: Readable,
  storage: UploadStorage,
  key: string,
  maxBytes: number,
  sniff: (head: Buffer) => F | null,
  refuse: { tooLarge: AppError; unsupported: AppError },
): Promise<{ file: StoredFile<F> | null; error: AppError | null }> {
  let size = 0;
  let head = Buffer.alloc(0);
  let format: F | null = null;
  let failure: AppError | null = null;
  const decide = (final: boolean) => {
    if (format || failure) return;
    if (head.length >= SNIFF_BYTES || final) {
      format = sniff(head);
      if (!format) failure = refuse.unsupported;
    }
  };
  let pending: Buffer[] = [];
  const guard = new Transform({
    transform(chunk: Buffer, _enc, done) {
      if (failure) return done();
      size += chunk.length;
      if (size > maxBytes) {
        failure = refuse.tooLarge;
        return done();
      }
      if (!format) {
        head = Buffer.concat([head, chunk]).subarray(0, SNIFF_BYTES);
        pending.push(chunk);
        decide(false);
        if (!format) return done();
        const out = Buffer.concat(pending);
        pending = [];
        return done(null, out);
      }
      done(null, chunk);
    },
    flush(done) {
      if (size === 0 && !failure) failure = refuse.unsupported;
      decide(true);
      if (!failure && pending.length > 0) this.push(Buffer.concat(pending));
      pending = [];
      done();
    },
  });
  // pipe() does not pass a source's failure on: a part that fails (body ended early, client gone)
  // must fail the store too, or the object store would wait for the rest of the file forever.
  let sourceError: Error | null = null;
  const onSourceError = (err: Error) => {
    sourceError ??= err;
    guard.destroy(err);
  };
  const onSourceClose = () => {
    if (!source.readableEnded) onSourceError(sourceError ?? new AppError('MALFORMED_REQUEST', 'The file part ended before its data was complete.'));
  };
  source.on('error', onSourceError);
  source.once('close', onSourceClose);
  source.pipe(guard);
  let storeError: unknown = null;
  try {
    // The content type is settled only after sniffing; the object gets a neutral one and the
    // stream routes decide what to answer from the track's recorded format.
    await storage.putStream(key, guard, 'application/octet-stream');
  } catch (err) {
    storeError = err;
    guard.resume(); // keep reading the request so the multipart parser can go on
  }
  await finished(source).catch(() => undefined); // only waiting for the stream to end; its error is sourceError
  source.off('error', onSourceError);
  source.off('close', onSourceClose);
  if (sourceError) throw sourceError;
  if (failure) return { file: null, error: failure };
  if (storeError) throw storeError;
  const kind = format as F | null;
  if (!kind) return { file: null, error: refuse.unsupported };
  return { file: { key, format: kind, size }, error: null };
}

async function drain(stream: Readable): Promise<void> {
  stream.resume();
  await finished(stream).catch(() => undefined); // only waiting for the stream to end; its error was handled where it was read
}

/**
 * Reads a multipart upload as it arrives: fields into memory (bounded), the audio file straight
 * into object storage (never whole in memory or on disk), the cover likewise. Parts after the
 * first refusal are drained. Refusals throw AppError after deleting what was written.
 */
export async function receiveUpload(request: UploadSource, options: ReceiveOptions): Promise<ReceivedUpload> {
  const id = randomUUID();
  const result: ReceivedUpload = { fields: {}, audio: null, cover: null, keys: [] };
  let refusal: AppError | null = null;
  const tooLong: string[] = [];
  try {
    const parts = request.parts({
      limits: { fieldSize: FIELD_MAX_BYTES, fields: 30, files: 4, parts: 40, fileSize: Number.MAX_SAFE_INTEGER },
    });
    for await (const part of parts) {
      if (part.type === 'field') {
        if (part.valueTruncated || part.fieldnameTruncated) tooLong.push(part.fieldname);
        else if (!(part.fieldname in result.fields)) result.fields[part.fieldname] = String(part.value ?? '');
        continue;
      }
      const isAudio = part.fieldname === options.audioField && !result.audio;
      const isCover = part.fieldname === options.coverField && !result.cover;
      if (refusal || (!isAudio && !isCover)) {
        await drain(part.file);
        continue;
      }
      if (isAudio) {
        const key = `uploads/${id}/original`;
        const { file, error } = await storeGuarded(part.file, options.storage, key, options.audioMaxBytes, sniffAudio, {
          tooLarge: new AppError('PAYLOAD_TOO_LARGE', `The audio file is larger than ${options.audioMaxBytes} bytes.`),
          unsupported: new AppError('UNSUPPORTED_AUDIO_FORMAT', 'The audio file is not MP3, WAV, FLAC, AAC, M4A or OGG.'),
        });
        result.keys.push(key);
        result.audio = file;
        refusal = error;
      } else {
        const key = `uploads/${id}/cover`;
        const { file, error } = await storeGuarded(part.file, options.storage, key, options.coverMaxBytes, sniffImage, {
          tooLarge: new AppError('PAYLOAD_TOO_LARGE', `The cover image is larger than ${options.coverMaxBytes} bytes.`),
          unsupported: new AppError('UNSUPPORTED_IMAGE_FORMAT', 'The cover image is not JPEG, PNG or WEBP.'),
        });
        result.keys.push(key);
        result.cover = file;
        refusal = error;
      }
    }
  } catch (err) {
    await discard(options.storage, result.keys);
    if (err instanceof AppError) throw err;
    const code = (err as { code?: string }).code;
    if (typeof code === 'string' && code.startsWith('FST_')) throw err;
    throw new AppError('MALFORMED_REQUEST', 'The multipart body could not be parsed.', { cause: err });
  }
  if (refusal) {
    await discard(options.storage, result.keys);
    throw refusal;
  }
  if (tooLong.length > 0) {
    await discard(options.storage, result.keys);
    throw AppError.validation(tooLong.map((field) => ({ field, message: 'Too long' })));
  }
  return result;
}

/** Deletes the objects of a refused upload (unfinished multipart uploads were aborted by putStream). */
export async function discard(storage: UploadStorage, keys: readonly string[]): Promise<void> {
  if (keys.length === 0) return;
  await storage.remove([...keys]).catch(() => undefined); // cleanup of a refused upload: left-overs cost storage, never correctness
}
