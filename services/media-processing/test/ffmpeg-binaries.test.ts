import { constants } from 'node:fs';
import { access, chmod, mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveMediaBinaries, runnable, versionCheck } from '../src/media/ffmpeg.js';

let root: string;

async function file(name: string, mode: number, content = `#!/bin/sh\necho ${name}\n`) {
  const full = path.join(root, name);
  await writeFile(full, content);
  await chmod(full, mode);
  return full;
}

async function executable(full: string) {
  return access(full, constants.X_OK).then(
    () => true,
    () => false,
  );
}

beforeAll(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'media-bin-test-'));
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('media binary resolution', () => {
  it('prefers the configured paths, then the system binaries, then the npm ones', async () => {
    const system = await mkdtemp(path.join(root, 'system-'));
    const empty = await mkdtemp(path.join(root, 'empty-'));
    const npm = await file('npm-ffprobe', 0o755);
    const npmBinary = async () => npm;

    const configured = await resolveMediaBinaries({ FFMPEG_PATH: '/opt/ff/ffmpeg', FFPROBE_PATH: '/opt/ff/ffprobe' }, { systemDir: system, npmBinary });
    expect(configured).toEqual({
      ffmpeg: { path: '/opt/ff/ffmpeg', source: 'config' },
      ffprobe: { path: '/opt/ff/ffprobe', source: 'config' },
    });

    await writeFile(path.join(system, 'ffprobe'), '#!/bin/sh\n');
    await chmod(path.join(system, 'ffprobe'), 0o755);
    await writeFile(path.join(system, 'ffmpeg'), 'not executable');
    const mixed = await resolveMediaBinaries({}, { systemDir: system, npmBinary });
    expect(mixed.ffprobe).toEqual({ path: path.join(system, 'ffprobe'), source: 'system' });
    expect(mixed.ffmpeg).toEqual({ path: npm, source: 'npm' }); // a system file that cannot run is skipped

    const fallback = await resolveMediaBinaries({}, { systemDir: empty, npmBinary });
    expect(fallback.ffprobe).toEqual({ path: npm, source: 'npm' });
  });

  it('runs an executable private copy of an npm binary shipped without its execute bit', async () => {
    const bare = await file('ffprobe', 0o644, 'binary-bytes');
    const copyDir = path.join(root, 'copies');
    const copy = await runnable(bare, copyDir);
    expect(copy).not.toBe(bare);
    expect(path.dirname(copy)).toBe(copyDir);
    expect(await executable(copy)).toBe(true);
    expect(await readFile(copy, 'utf8')).toBe('binary-bytes');
    expect((await stat(copyDir)).mode & 0o077).toBe(0);
    expect(await runnable(bare, copyDir)).toBe(copy); // reused, not copied again

    const ready = await file('ready-binary', 0o755);
    expect(await runnable(ready, copyDir)).toBe(ready);
  });

  it('refuses a copy folder that others can write to', async () => {
    const shared = path.join(root, 'shared');
    await rm(shared, { recursive: true, force: true });
    await mkdir(shared);
    await chmod(shared, 0o777);
    const bare = await file('other-ffprobe', 0o644);
    await expect(runnable(bare, shared)).rejects.toThrow(/closed to others/);
  });
});

describe('media binaries readiness check', () => {
  it('runs `-version` on every binary once per minute and keeps the outcome in between', async () => {
    let clock = 0;
    const calls: string[] = [];
    let failing = false;
    const check = versionCheck(['/bin/ffprobe', '/bin/ffmpeg'], {
      now: () => clock,
      run: async (bin, args) => {
        calls.push(`${bin} ${args.join(' ')}`);
        if (failing) throw new Error('exit 126');
      },
    });

    await check();
    await check();
    expect(calls).toEqual(['/bin/ffprobe -version', '/bin/ffmpeg -version']);

    failing = true;
    clock = 59_999;
    await expect(check()).resolves.toBeUndefined(); // still the cached success
    clock = 60_000;
    await expect(check()).rejects.toThrow('exit 126');
    clock = 90_000;
    await expect(check()).rejects.toThrow('exit 126'); // the failure is cached too
    expect(calls).toHaveLength(4);

    failing = false;
    clock = 120_000;
    await expect(check()).resolves.toBeUndefined();
    expect(calls).toHaveLength(6);
  });
});
