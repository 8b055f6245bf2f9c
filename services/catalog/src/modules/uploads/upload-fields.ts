import { z } from 'zod';
import { TrackAccessSchema } from '@msp/contracts';

/** Multipart booleans are "true"/"false" (docs/api.md "Conventions"). */
const BoolText = z.enum(['true', 'false']).transform((v) => v === 'true');

const DateText = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'Expected YYYY-MM-DD')
  .refine((v) => !Number.isNaN(Date.parse(`${v}T00:00:00.000Z`)) && new Date(`${v}T00:00:00.000Z`).toISOString().startsWith(v), 'Not a calendar date');

/** R11 tags: ≤ 20 strings of 1–40 chars, trimmed, lower-cased, de-duplicated. */
export const TagsSchema = z
  .array(z.string().trim().min(1).max(40))
  .max(20)
  .transform((tags) => [...new Set(tags.map((t) => t.toLowerCase()))]);

function jsonText<T extends z.ZodType>(schema: T) {
  return z
    .string()
    .transform((text, ctx) => {
      try {
        return JSON.parse(text) as unknown;
      } catch {
        ctx.addIssue({ code: 'custom', message: 'Expected a JSON array' });
        return z.NEVER;
      }
    })
    .pipe(schema);
}

/** R11: waveformData is validated, then ignored (the server computes the waveform). */
const WaveformDataSchema = z.array(z.number().min(0).max(1)).max(10_000);

export const TitleSchema = z.string().trim().min(1).max(200);
export const GenreSchema = z.string().trim().min(1).max(100);
export const DescriptionSchema = z.string().max(5000);

/** TRK-1/TRK-2 text parts (R11). */
export const UploadFieldsSchema = z.object({
  title: TitleSchema,
  genre: GenreSchema,
  description: DescriptionSchema.optional(),
  isPrivate: BoolText.optional(),
  access: TrackAccessSchema.optional(),
  releaseDate: DateText.optional(),
  tags: jsonText(TagsSchema).optional(),
  waveformData: jsonText(WaveformDataSchema).optional(),
  uploadId: z.uuid().optional(),
});
export type UploadFields = z.output<typeof UploadFieldsSchema>;

/** TRK-8 as JSON (tags an array) — multipart sends the same names as text parts. */
export const UpdateJsonSchema = z.object({
  title: TitleSchema.optional(),
  genre: GenreSchema.optional(),
  tags: TagsSchema.optional(),
  description: DescriptionSchema.nullable().optional(),
  releaseDate: DateText.optional(),
  isPrivate: z.boolean().optional(),
  access: TrackAccessSchema.optional(),
});
export type TrackUpdate = z.output<typeof UpdateJsonSchema>;

export const UpdateMultipartSchema = z.object({
  title: TitleSchema.optional(),
  genre: GenreSchema.optional(),
  tags: jsonText(TagsSchema).optional(),
  description: DescriptionSchema.optional(),
  releaseDate: DateText.optional(),
  isPrivate: BoolText.optional(),
  access: TrackAccessSchema.optional(),
});

export function todayUtc(): string {
  return new Date().toISOString().slice(0, 10);
}

/** R1: slug from the title (ASCII, lower-case, dashes); uniqueness is the repository's job. */
export function slugify(title: string): string {
  const base = title
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 80)
    .replace(/-+$/g, '');
  return base || 'track';
}
