import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { PlaylistTypeSchema } from '@msp/contracts';
import { AppError } from '@msp/errors';
import { multipartParts } from '@msp/http';
import type { ObjectStorage } from '@msp/storage';
import { sniffImage } from '../uploads/audio-format.js';
import { TagsSchema } from '../uploads/upload-fields.js';

/** Playlist fields of PLS-3/PLS-5 (Playlist record limits, R6). */
const TitleSchema = z.string().trim().min(1).max(100);
const DescriptionSchema = z.string().max(1000);
const GenreSchema = z.string().trim().max(100);

const BoolLike = z.union([z.boolean(), z.enum(['true', 'false']).transform((v) => v === 'true')]);

/** Tags: an array in JSON bodies, a JSON-encoded array string in multipart ones (docs/api.md "Conventions"). */
const TagsInput = z.union([
  TagsSchema,
  z
    .string()
    .max(10_000)
    .transform((text, ctx) => {
      try {
        return JSON.parse(text) as unknown;
      } catch {
        ctx.addIssue({ code: 'custom', message: 'Expected a JSON array of strings' });
        return z.NEVER;
      }
    })
    .pipe(TagsSchema),
]);

const FieldsSchema = z.object({
  title: TitleSchema,
  description: DescriptionSchema.nullish(),
  type: PlaylistTypeSchema.optional(),
  isPrivate: BoolLike.optional(),
  genre: GenreSchema.nullish(),
  tags: TagsInput.optional(),
  /** String form of the cover (R6): data URL or the URL of an image this service serves; "" removes it (PLS-5). */
  CoverArt: z
    .string()
    .max(15 * 1024 * 1024)
    .optional(),
});

export const CreateFieldsSchema = FieldsSchema;
export const UpdateFieldsSchema = FieldsSchema.partial();

export type PlaylistFields = z.output<typeof UpdateFieldsSchema>;

/** What a PLS-3/PLS-5 request asks for the cover. */
export type CoverInput = { kind: 'none' } | { kind: 'remove' } | { kind: 'image'; bytes: Buffer };

export interface PlaylistInput {
  fields: PlaylistFields;
  cover: CoverInput;
}

function validation(issues: readonly z.core.$ZodIssue[]): AppError {
  return AppError.validation(issues.map((i) => ({ field: i.path.map(String).join('.') || 'body', message: i.message })));
}

async function readAll(stream: Readable, limit: number): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
    size += buf.length;
    if (size > limit) {
      stream.destroy();
      return null;
    }
    chunks.push(buf);
  }
  return Buffer.concat(chunks);
}

/**
 * Reads PLS-3/PLS-5 input: a JSON body, or multipart text parts plus a `coverArt` file part.
 * Unknown fields are ignored (docs/api.md "Conventions"). Validation happens before anything is stored.
 */
export async function readPlaylistInput(
  request: FastifyRequest,
  options: { partial: boolean; coverMaxBytes: number; storage: ObjectStorage; publicBaseUrl: string },
): Promise<PlaylistInput> {
  const schema = options.partial ? UpdateFieldsSchema : CreateFieldsSchema;
  let raw: Record<string, unknown>;
  let file: Buffer | null = null;
  if (request.isMultipart()) {
    raw = {};
    let tooLarge = false;
    const parts = multipartParts(request.raw, () =>
      request.parts({ limits: { fileSize: options.coverMaxBytes + 1, fieldSize: 15 * 1024 * 1024, files: 2, fields: 20 } }),
    );
    for await (const part of parts) {
      if (part.type === 'field') {
        raw[part.fieldname] = String(part.value ?? '');
      } else if (part.fieldname === 'coverArt' && !file) {
        file = await part.toBuffer().catch((err: { code?: string }) => {
          if (err.code === 'FST_REQ_FILE_TOO_LARGE') tooLarge = true;
          return Buffer.alloc(0);
        });
      } else {
        part.file.resume();
      }
    }
    if (tooLarge || (file && file.length > options.coverMaxBytes))
      throw new AppError('PAYLOAD_TOO_LARGE', `The cover image is larger than ${options.coverMaxBytes} bytes.`);
    // A string part named `coverArt` is the string form too (clients differ in the casing).
    if (raw.CoverArt === undefined && typeof raw.coverArt === 'string') raw.CoverArt = raw.coverArt;
  } else {
    const body = request.body ?? {};
    if (typeof body !== 'object' || Array.isArray(body)) throw AppError.validation([{ field: 'body', message: 'Expected a JSON object' }]);
    raw = { ...(body as Record<string, unknown>) };
    if (raw.CoverArt === undefined && typeof raw.coverArt === 'string') raw.CoverArt = raw.coverArt;
    if (raw.CoverArt === null) raw.CoverArt = '';
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) throw validation(parsed.error.issues);
  const fields = parsed.data;

  let cover: CoverInput = { kind: 'none' };
  if (file && file.length > 0) {
    cover = { kind: 'image', bytes: file };
  } else if (file) {
    throw new AppError('UNSUPPORTED_IMAGE_FORMAT', 'The cover image is empty.');
  } else if (fields.CoverArt !== undefined) {
    const text = fields.CoverArt.trim();
    if (text === '') cover = options.partial ? { kind: 'remove' } : { kind: 'none' };
    else cover = { kind: 'image', bytes: await coverFromString(text, options) };
  }
  return { fields, cover };
}

/** R6 string cover: a `data:image/…;base64,` URL or the URL of an image this service already serves (copied). */
async function coverFromString(text: string, options: { coverMaxBytes: number; storage: ObjectStorage; publicBaseUrl: string }): Promise<Buffer> {
  const data = /^data:image\/[a-z0-9.+-]+;base64,([A-Za-z0-9+/=\s]*)$/i.exec(text);
  if (data) {
    const encoded = data[1]!.replace(/\s+/g, '');
    if (Math.floor((encoded.length * 3) / 4) > options.coverMaxBytes + 2)
      throw new AppError('PAYLOAD_TOO_LARGE', `The cover image is larger than ${options.coverMaxBytes} bytes.`);
    const bytes = Buffer.from(encoded, 'base64');
    if (bytes.length > options.coverMaxBytes) throw new AppError('PAYLOAD_TOO_LARGE', `The cover image is larger than ${options.coverMaxBytes} bytes.`);
    if (bytes.length === 0) throw new AppError('UNSUPPORTED_IMAGE_FORMAT', 'The cover image is empty.');
    return bytes;
  }
  const key = ownAssetKey(text, options.publicBaseUrl);
  if (!key) throw new AppError('UNSUPPORTED_IMAGE_FORMAT', 'CoverArt must be a data:image URL or the URL of an image served by this service.');
  const stat = await options.storage.stat(key);
  if (!stat) throw new AppError('UNSUPPORTED_IMAGE_FORMAT', 'The cover URL does not point to an image of this service.');
  if (stat.size > options.coverMaxBytes) throw new AppError('PAYLOAD_TOO_LARGE', `The cover image is larger than ${options.coverMaxBytes} bytes.`);
  const bytes = await readAll(await options.storage.get(key), options.coverMaxBytes);
  if (!bytes) throw new AppError('PAYLOAD_TOO_LARGE', `The cover image is larger than ${options.coverMaxBytes} bytes.`);
  return bytes;
}

/** `{PUBLIC_BASE_URL}/api/media/assets/{uuid}/{file}` (or that bare path) → the object key `public/{uuid}/{file}`. */
function ownAssetKey(text: string, publicBaseUrl: string): string | null {
  let path = text;
  if (/^https?:\/\//i.test(text)) {
    let url: URL;
    let base: URL;
    try {
      url = new URL(text);
      base = new URL(publicBaseUrl);
    } catch {
      return null;
    }
    if (url.origin !== base.origin) return null;
    path = url.pathname;
  }
  const match = /^\/api\/media\/assets\/([0-9a-f-]{36})\/([a-z0-9.-]{1,100})$/.exec(path);
  return match ? `public/${match[1]}/${match[2]}` : null;
}

/** Judged by content (JPEG/PNG/WEBP), resized to a 500×500 JPEG and stored as a public asset. */
export async function storeCover(bytes: Buffer, storage: Pick<ObjectStorage, 'put'>): Promise<string> {
  if (!sniffImage(bytes)) throw new AppError('UNSUPPORTED_IMAGE_FORMAT', 'The cover image is not JPEG, PNG or WEBP.');
  // Loaded on first use: the image library is heavy and most requests carry no cover.
  const { default: sharp } = await import('sharp');
  const jpeg = await sharp(bytes)
    .resize(500, 500, { fit: 'cover' })
    .jpeg({ quality: 85 })
    .toBuffer()
    .catch(() => {
      throw new AppError('UNSUPPORTED_IMAGE_FORMAT', 'The cover image could not be read.');
    });
  const key = `public/${randomUUID()}/cover.jpg`;
  await storage.put(key, jpeg, 'image/jpeg', jpeg.length);
  return key;
}
