import { spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Readable } from 'node:stream';

export class MediaCommandError extends Error {
  constructor(
    message: string,
    readonly exitCode: number | null,
    readonly stderr: string,
  ) {
    super(message);
    this.name = 'MediaCommandError';
  }
}

export interface RunOptions {
  /** Aborting kills the process (worker shutdown, lease lost). */
  signal?: AbortSignal;
  /** Receives stdout as it is produced (e.g. PCM for the waveform); otherwise stdout is collected. */
  onStdout?: (stdout: Readable) => Promise<void>;
  /**
   * More output pipes: the i-th one is the child's file descriptor 3 + i (ffmpeg writes it as
   * `pipe:3`, `pipe:4`…). Each reader must consume its stream to the end, or the child blocks.
   */
  pipes?: ReadonlyArray<(stream: Readable) => Promise<void>>;
  timeoutMs?: number;
}

const STDERR_KEEP = 8 * 1024;

/**
 * Runs ffmpeg/ffprobe without a shell. Resolves with stdout (unless streamed) when the process
 * exits 0; rejects with the tail of stderr otherwise. Killed with SIGKILL on abort or timeout.
 */
export function runMedia(file: string, args: readonly string[], options: RunOptions = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    if (options.signal?.aborted) {
      reject(new MediaCommandError('aborted', null, ''));
      return;
    }
    const pipes = options.pipes ?? [];
    const child = spawn(file, args, { stdio: ['ignore', 'pipe', 'pipe', ...pipes.map(() => 'pipe' as const)] }) as ChildProcessByStdio<
      null,
      Readable,
      Readable
    >;
    let stderr = '';
    const stdout: Buffer[] = [];
    let streamed: Promise<void> = Promise.resolve();
    const extra = pipes.map((read, i) => read(child.stdio[3 + i] as Readable));
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      stderr = (stderr + chunk).slice(-STDERR_KEEP);
    });
    if (options.onStdout) streamed = options.onStdout(child.stdout);
    else child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));

    const kill = () => child.kill('SIGKILL');
    options.signal?.addEventListener('abort', kill, { once: true });
    const timer = options.timeoutMs ? setTimeout(kill, options.timeoutMs) : null;
    child.on('error', (err) => {
      if (timer) clearTimeout(timer);
      options.signal?.removeEventListener('abort', kill);
      reject(err);
    });
    child.on('close', (code) => {
      if (timer) clearTimeout(timer);
      options.signal?.removeEventListener('abort', kill);
      Promise.all([streamed, ...extra]).then(
        () => {
          if (code === 0) resolve(Buffer.concat(stdout).toString('utf8'));
          else reject(new MediaCommandError(options.signal?.aborted ? 'aborted' : `exit ${code}`, code, stderr.trim()));
        },
        (err: unknown) => reject(err instanceof Error ? err : new Error(String(err))),
      );
    });
  });
}
