export interface WaitForOptions {
  timeoutMs?: number;
  intervalMs?: number;
  message?: string;
}

/**
 * Polls until `probe` returns a value that is not undefined/false (or stops throwing), bounded by
 * a timeout. Tests wait for asynchronous effects with this, never with a fixed sleep.
 */
export async function waitFor<T>(probe: () => Promise<T | undefined | false> | T | undefined | false, options: WaitForOptions = {}): Promise<T> {
  const timeoutMs = options.timeoutMs ?? 5000;
  const intervalMs = options.intervalMs ?? 50;
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined && value !== false) return value as T;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() >= deadline) {
      const detail = lastError instanceof Error ? `: ${lastError.message}` : '';
      throw new Error(`${options.message ?? 'condition not met'} within ${timeoutMs} ms${detail}`);
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
