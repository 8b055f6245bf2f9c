import { randomUUID } from 'node:crypto';
import sharp from 'sharp';
import { AppError } from '@msp/errors';
import type { ObjectStorage } from '@msp/storage';
import { sniffImage } from './audio-format.js';

/**
 * Cover images of tracks: checked by content (JPEG, PNG, WEBP), resized to a 500×500 JPEG and
 * stored as a public asset (`public/<uuid>/cover.jpg`, MEDIA-3).
 */
export class CoverImages {
  constructor(private readonly storage: ObjectStorage) {}

  async store(image: Buffer): Promise<string> {
    if (!sniffImage(image)) throw new AppError('UNSUPPORTED_IMAGE_FORMAT', 'The cover image is not JPEG, PNG or WEBP.');
    const jpeg = await sharp(image)
      .resize(500, 500, { fit: 'cover' })
      .jpeg({ quality: 85 })
      .toBuffer()
      .catch(() => {
        throw new AppError('UNSUPPORTED_IMAGE_FORMAT', 'The cover image could not be read.');
      });
    const key = `public/${randomUUID()}/cover.jpg`;
    await this.storage.put(key, jpeg, 'image/jpeg', jpeg.length);
    return key;
  }

  /** Best effort: a leftover object is harmless (unguessable, unreferenced). */
  async remove(keys: ReadonlyArray<string | null>): Promise<void> {
    const present = keys.filter((k): k is string => !!k);
    if (present.length > 0) await this.storage.remove(present).catch(() => undefined); // an orphaned image costs storage, never correctness
  }
}
