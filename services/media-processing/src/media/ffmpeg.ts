import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { constants } from 'node:fs';
import { access, chmod, copyFile, lstat, mkdir, rename, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import ffmpeg, { type FfprobeData } from 'fluent-ffmpeg';
import type { ReadinessCheck } from '@msp/http';

const execFileAsync = promisify(execFile);

export type BinaryName = 'ffmpeg' | 'ffprobe';
export type BinarySource = 'config' | 'system' | 'npm';

export interface ResolvedBinary {
  path: string;
  source: BinarySource;
}

export interface MediaBinaries {
  ffmpeg: ResolvedBinary;
  ffprobe: ResolvedBinary;
}

export interface ResolveOptions {
  /** Folder of the system's binaries (Debian's ffmpeg package installs both here). */
  systemDir?: string;
  /** Path of the npm-installed binary; tests replace it. */
  npmBinary?: (name: BinaryName) => Promise<string>;
  /** Private folder for executable copies (see `runnable`). */
  copyDir?: string;
}

async function isExecutable(file: string): Promise<boolean> {
  try {
    await access(file, constants.X_OK);
    return (await stat(file)).isFile();
  } catch {
    return false;
  }
}

/** Imported only when needed: the installers throw on a platform they ship no binary for. */
async function npmBinary(name: BinaryName): Promise<string> {
  const installer = name === 'ffmpeg' ? await import('@ffmpeg-installer/ffmpeg') : await import('@ffprobe-installer/ffprobe');
  return installer.default.path;
}

function defaultCopyDir(): string {
  const user = typeof process.getuid === 'function' ? String(process.getuid()) : os.userInfo().username;
  return path.join(os.tmpdir(), `msp-media-bin-${user}`);
}

/** The copy folder must be ours alone: whatever sits in it gets executed. */
async function privateDir(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const info = await lstat(dir);
  const owner = typeof process.getuid === 'function' ? process.getuid() : info.uid;
  if (!info.isDirectory() || info.uid !== owner || (info.mode & 0o077) !== 0) {
    throw new Error(`${dir} must be a directory owned by this user and closed to others`);
  }
}

/**
 * The npm binary may arrive without its execute bit: @ffprobe-installer/linux-x64 sets it in a
 * postinstall script (`chmod u+x ffprobe`), which pnpm skips unless the workspace root lists the
 * package in `pnpm.onlyBuiltDependencies`. Instead of failing, run an executable copy kept in a
 * private folder, named by size and mtime so a new version gets a new copy.
 */
export async function runnable(file: string, copyDir = defaultCopyDir()): Promise<string> {
  if (await isExecutable(file)) return file;
  const source = await stat(file);
  await privateDir(copyDir);
  const target = path.join(copyDir, `${path.basename(file)}-${source.size}-${Math.trunc(source.mtimeMs)}`);
  if ((await isExecutable(target)) && (await stat(target)).size === source.size) return target;
  const partial = `${target}.${randomUUID()}.partial`;
  try {
    await copyFile(file, partial);
    await chmod(partial, 0o755);
    // Atomic: a concurrent process sees either no copy or a complete one.
    await rename(partial, target);
  } finally {
    await rm(partial, { force: true });
  }
  return target;
}

async function resolveOne(name: BinaryName, configured: string | undefined, options: ResolveOptions): Promise<ResolvedBinary> {
  if (configured) return { path: configured, source: 'config' };
  const system = path.join(options.systemDir ?? '/usr/bin', name);
  if (await isExecutable(system)) return { path: system, source: 'system' };
  const installed = await (options.npmBinary ?? npmBinary)(name);
  return { path: await runnable(installed, options.copyDir), source: 'npm' };
}

/** FFMPEG_PATH/FFPROBE_PATH when set, else the system binaries when installed, else the npm ones. */
export async function resolveMediaBinaries(
  config: { FFMPEG_PATH?: string | undefined; FFPROBE_PATH?: string | undefined },
  options: ResolveOptions = {},
): Promise<MediaBinaries> {
  const [ffmpegBinary, ffprobeBinary] = await Promise.all([
    resolveOne('ffmpeg', config.FFMPEG_PATH, options),
    resolveOne('ffprobe', config.FFPROBE_PATH, options),
  ]);
  return { ffmpeg: ffmpegBinary, ffprobe: ffprobeBinary };
}

/** fluent-ffmpeg keeps the paths process-wide; every command and probe after this uses them. */
export function useMediaBinaries(binaries: MediaBinaries): void {
  ffmpeg.setFfmpegPath(binaries.ffmpeg.path);
  ffmpeg.setFfprobePath(binaries.ffprobe.path);
}

export interface VersionCheckOptions {
  ttlMs?: number;
  now?: () => number;
  run?: (file: string, args: string[]) => Promise<unknown>;
}

const runVersion = (file: string, args: string[]) => execFileAsync(file, args, { timeout: 10_000 });

/**
 * Readiness: the binaries start (`<binary> -version`). One outcome, success or failure, is kept
 * for `ttlMs` so /ready, polled every few seconds, does not spawn processes each time.
 */
export function versionCheck(files: readonly string[], options: VersionCheckOptions = {}): ReadinessCheck {
  const ttlMs = options.ttlMs ?? 60_000;
  const now = options.now ?? Date.now;
  const run = options.run ?? runVersion;
  let cached: { at: number; outcome: Promise<void> } | null = null;
  return () => {
    if (!cached || now() - cached.at >= ttlMs) {
      const outcome = Promise.all(files.map((file) => run(file, ['-version']))).then(() => undefined);
      outcome.catch(() => undefined); // observed by the callers; never an unhandled rejection
      cached = { at: now(), outcome };
    }
    return cached.outcome;
  };
}

/** ffprobe through fluent-ffmpeg (format and streams of a file). */
export function probe(file: string): Promise<FfprobeData> {
  return new Promise((resolve, reject) => {
    ffmpeg.ffprobe(file, (err: unknown, data: FfprobeData) => {
      if (err) reject(err instanceof Error ? err : new Error(String(err)));
      else resolve(data);
    });
  });
}
