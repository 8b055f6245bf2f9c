import pino from 'pino';

/** Without a setting (apps built without the config, e.g. tests): the default of LOG_BUFFER_BYTES (packages/config). */
const DEFAULT_LOG_BUFFER_BYTES = 4096;
/** Lines never wait longer than this for a quiet process (a development terminal, a probe-only pod). */
export const LOG_FLUSH_INTERVAL_MS = 200;

export interface LogDestination {
  write(line: string): void;
}

let override: LogDestination | undefined;
let stdout: LogDestination | undefined;

/** Where the fleet's loggers write (default stdout); tests capture log lines with it. */
export function setLogDestination(stream: LogDestination | undefined): void {
  override = stream;
}

/**
 * The destination of a process's loggers: what a test set, else stdout written in batches
 * (`bufferedLog`). One stdout stream per process: the first size asked for wins.
 */
export function logDestination(bufferBytes = DEFAULT_LOG_BUFFER_BYTES): LogDestination {
  if (override) return override;
  stdout ??= bufferedLog(1, bufferBytes);
  return stdout;
}

/**
 * A file descriptor (stdout) written in batches. Each write to stdout is a system call that wakes
 * its reader (the container runtime's log pipe); on a busy process one line per request was one
 * such wake-up per request. With `bufferBytes` > 0 lines are joined until that many bytes wait or
 * LOG_FLUSH_INTERVAL_MS has passed, and whatever waits is written synchronously when the process
 * exits (pino's exit hook: `process.exit`, an uncaught error, the end of the event loop). A crash
 * that kills the process outright (SIGKILL, the kernel's OOM killer) loses at most that window.
 * `bufferBytes` 0 writes each line as it comes (asynchronously, as pino's default does).
 */
export function bufferedLog(fd: number, bufferBytes: number): LogDestination {
  const stream = pino.destination({ dest: fd, sync: false, minLength: bufferBytes });
  if (bufferBytes === 0) return stream;
  let waiting = false;
  // A flush while a write is in flight leaves the rest to the next tick of the timer.
  setInterval(() => {
    if (!waiting) return;
    waiting = false;
    stream.flush();
  }, LOG_FLUSH_INTERVAL_MS).unref();
  return {
    write(line: string) {
      waiting = true;
      stream.write(line);
    },
  };
}
