import { describe, expect, it } from 'vitest';
import sharp from 'sharp';
import type { IdentityConfig } from '../../config.js';
import { Links } from '../../links.js';
import type { ProfileRow } from '../profiles/profiles.repository.js';
import { ImagesService, type ImageStorage } from './images.service.js';

const links = new Links({ WEB_BASE_URL: 'https://web.test', S3_ENDPOINT: 'https://s3.test', S3_BUCKET: 'media' } as IdentityConfig);
const png = () =>
  sharp({ create: { width: 8, height: 4, channels: 3, background: '#3366ff' } })
    .png()
    .toBuffer();

/** A bucket as a Map, the user's current keys, and a profile update that may fail. */
function setup(current: { avatarKey: string | null; coverKey: string | null }, opts: { updateFails?: boolean } = {}) {
  const objects = new Map<string, Buffer>();
  const removed: string[] = [];
  let keys = { ...current };
  const storage = {
    bucket: 'media',
    remove: (list: string[]) => {
      removed.push(...list);
      list.forEach((k) => objects.delete(k));
      return Promise.resolve();
    },
    client: {
      putObject: (_bucket: string, key: string, body: Buffer) => {
        objects.set(key, body);
        return Promise.resolve({ etag: 'e', versionId: null });
      },
      setBucketPolicy: () => Promise.resolve(),
    },
  } as unknown as ImageStorage;
  const profiles = {
    imageKeys: () => Promise.resolve(keys),
    updateUser: (_id: number, data: { avatarKey?: string | null; coverKey?: string | null }) => {
      if (opts.updateFails) return Promise.reject(new Error('database down'));
      keys = { ...keys, ...data };
      return Promise.resolve(keys as ProfileRow);
    },
  };
  const warnings: object[] = [];
  const service = new ImagesService(storage, profiles, links, { info: () => undefined, warn: (o: object) => void warnings.push(o) });
  return { service, objects, removed, keys: () => keys };
}

describe('USR-9…USR-11 profile images (R4)', () => {
  it('renders an upload to its standard JPEG size under an unguessable key, and deletes the replaced file', async () => {
    const { service, objects, removed, keys } = setup({ avatarKey: 'images/users/7/avatar-old.jpg', coverKey: 'images/users/7/cover-keep.jpg' });
    const result = await service.apply(7, { avatar: await png() }, 'c');
    const key = keys().avatarKey!;
    expect(key).toMatch(/^images\/users\/7\/avatar-[A-Za-z0-9_-]{20,}\.jpg$/);
    expect(result).toMatchObject({ avatarUrl: `https://s3.test/media/${key}`, coverPhotoUrl: 'https://s3.test/media/images/users/7/cover-keep.jpg' });
    const meta = await sharp(objects.get(key)).metadata();
    expect(meta).toMatchObject({ format: 'jpeg', width: 400, height: 400 });
    expect(removed).toEqual(['images/users/7/avatar-old.jpg']);
  });

  it('removes an image on request without writing one', async () => {
    const { service, objects, removed, keys } = setup({ avatarKey: null, coverKey: 'images/users/7/cover-old.jpg' });
    await expect(service.apply(7, { cover: 'remove' }, 'c')).resolves.toMatchObject({ coverPhotoUrl: null });
    expect(keys().coverKey).toBeNull();
    expect(objects.size).toBe(0);
    expect(removed).toEqual(['images/users/7/cover-old.jpg']);
  });

  it('answers UNSUPPORTED_IMAGE_FORMAT for content that is not JPEG, PNG or WEBP, whatever it claims to be', async () => {
    const { service, objects } = setup({ avatarKey: null, coverKey: null });
    await expect(service.apply(7, { avatar: Buffer.from('GIF89a not really') }, 'c')).rejects.toMatchObject({ code: 'UNSUPPORTED_IMAGE_FORMAT' });
    const gif = await sharp({ create: { width: 2, height: 2, channels: 3, background: '#000' } })
      .gif()
      .toBuffer();
    await expect(service.apply(7, { cover: gif }, 'c')).rejects.toMatchObject({ code: 'UNSUPPORTED_IMAGE_FORMAT' });
    expect(objects.size).toBe(0);
  });

  it('removes what it wrote when the profile cannot be updated, keeping the old file', async () => {
    const { service, objects, removed } = setup({ avatarKey: 'images/users/7/avatar-old.jpg', coverKey: null }, { updateFails: true });
    await expect(service.apply(7, { avatar: await png() }, 'c')).rejects.toThrow('database down');
    expect(objects.size).toBe(0);
    expect(removed).toHaveLength(1);
    expect(removed[0]).not.toBe('images/users/7/avatar-old.jpg');
  });
});
