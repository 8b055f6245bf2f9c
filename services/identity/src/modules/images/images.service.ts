import sharp from 'sharp';
import { AppError } from '@msp/errors';
import type { ObjectStorage } from '@msp/storage';
import type { Logger } from '@msp/runtime';
import type { Links } from '../../links.js';
import type { ProfilesService } from '../profiles/profiles.service.js';
import { randomSecret } from '../sessions/secrets.js';

export type ImageKind = 'avatar' | 'cover';

/** Standard renditions: a square avatar and a 3:1 banner, JPEG (every client renders it). */
const SIZES: Record<ImageKind, { width: number; height: number }> = {
  avatar: { width: 400, height: 400 },
  cover: { width: 1500, height: 500 },
};
const ACCEPTED = new Set(['jpeg', 'png', 'webp']);
/** Object names are unguessable, so the files can be served unsigned and cached forever (R4). */
const CACHE_CONTROL = 'public, max-age=31536000, immutable';

/** The object storage an image change writes to (unit tests give fakes). */
export type ImageStorage = Pick<ObjectStorage, 'bucket' | 'remove'> & { client: Pick<ObjectStorage['client'], 'putObject' | 'setBucketPolicy'> };

export interface ImageChanges {
  avatar?: Buffer | 'remove';
  cover?: Buffer | 'remove';
}

/** USR-9…USR-11: images judged by content, resized, stored; replaced files are deleted. */
export class ImagesService {
  constructor(
    private readonly storage: ImageStorage,
    private readonly profiles: Pick<ProfilesService, 'updateUser' | 'imageKeys'>,
    private readonly links: Links,
    private readonly logger: Pick<Logger, 'info' | 'warn'>,
  ) {}

  /**
   * R4: avatars and covers are fetched without a signature. MinIO needs an anonymous-read policy
   * on the `images/` prefix for that; s3rver serves everything and may not support policies.
   */
  async allowPublicRead(): Promise<void> {
    const policy = {
      Version: '2012-10-17',
      Statement: [{ Effect: 'Allow', Principal: { AWS: ['*'] }, Action: ['s3:GetObject'], Resource: [`arn:aws:s3:::${this.storage.bucket}/images/*`] }],
    };
    await this.storage.client
      .setBucketPolicy(this.storage.bucket, JSON.stringify(policy))
      .catch((err: Error) => this.logger.info({ err: err.message }, 'bucket policy not set (storage without policies)'));
  }

  /** Renders the upload into its standard size; anything but JPEG/PNG/WEBP content is refused. */
  async render(kind: ImageKind, input: Buffer): Promise<Buffer> {
    let format: string | undefined;
    try {
      format = (await sharp(input, { failOn: 'error' }).metadata()).format;
    } catch {
      format = undefined;
    }
    if (!format || !ACCEPTED.has(format)) {
      throw new AppError('UNSUPPORTED_IMAGE_FORMAT', 'Images must be JPEG, PNG or WEBP.');
    }
    try {
      const { width, height } = SIZES[kind];
      return await sharp(input, { failOn: 'error' }).rotate().resize(width, height, { fit: 'cover' }).jpeg({ quality: 85 }).toBuffer();
    } catch (err) {
      throw new AppError('UNSUPPORTED_IMAGE_FORMAT', 'The image could not be decoded.', { cause: err });
    }
  }

  async apply(userId: number, changes: ImageChanges, correlationId: string) {
    const rendered: Partial<Record<ImageKind, Buffer | 'remove'>> = {};
    for (const kind of ['avatar', 'cover'] as const) {
      const change = changes[kind];
      if (change === undefined) continue;
      rendered[kind] = change === 'remove' ? 'remove' : await this.render(kind, change);
    }
    const newKeys: Partial<Record<ImageKind, string | null>> = {};
    for (const kind of ['avatar', 'cover'] as const) {
      const r = rendered[kind];
      if (r === undefined) continue;
      if (r === 'remove') {
        newKeys[kind] = null;
        continue;
      }
      const key = `images/users/${userId}/${kind}-${randomSecret(24)}.jpg`;
      await this.storage.client.putObject(this.storage.bucket, key, r, r.length, { 'Content-Type': 'image/jpeg', 'Cache-Control': CACHE_CONTROL });
      newKeys[kind] = key;
    }
    const written = Object.values(newKeys).filter((k): k is string => typeof k === 'string');
    let old: { avatarKey: string | null; coverKey: string | null };
    let row;
    try {
      old = await this.currentKeys(userId);
      row = await this.profiles.updateUser(
        userId,
        { ...(newKeys.avatar !== undefined ? { avatarKey: newKeys.avatar } : {}), ...(newKeys.cover !== undefined ? { coverKey: newKeys.cover } : {}) },
        correlationId,
      );
    } catch (err) {
      // The original error is rethrown; an orphaned object is unreferenced and harmless.
      await this.storage.remove(written).catch(() => undefined);
      throw err;
    }
    const replaced = [newKeys.avatar !== undefined ? old.avatarKey : null, newKeys.cover !== undefined ? old.coverKey : null].filter(
      (k): k is string => Boolean(k) && !written.includes(k as string),
    );
    await this.storage.remove(replaced).catch((err) => this.logger.warn({ err, keys: replaced }, 'old images not removed'));
    const avatarUrl = this.links.mediaUrl(row.avatarKey);
    const coverPhotoUrl = this.links.mediaUrl(row.coverKey);
    return { profilePic: avatarUrl, coverPic: coverPhotoUrl, avatarUrl, coverPhotoUrl };
  }

  private async currentKeys(userId: number) {
    return this.profiles.imageKeys(userId);
  }
}
