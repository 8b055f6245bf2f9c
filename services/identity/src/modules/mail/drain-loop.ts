/**
 * Runs `drain` at start, every `pollMs` after the previous run ended, and as soon as possible
 * after `wake()` (a run in progress is followed by another one at once). Never two runs at a
 * time in one process; `stop()` waits for the current run.
 */
export class DrainLoop {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private wakeRequested = false;
  private stopped = false;

  constructor(
    private readonly drain: () => Promise<void>,
    private readonly pollMs: number,
    private readonly onError: (err: unknown) => void,
  ) {}

  start(): void {
    this.schedule(0);
  }

  wake(): void {
    if (this.stopped) return;
    if (this.running) {
      this.wakeRequested = true;
      return;
    }
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
  }

  get isStopped(): boolean {
    return this.stopped;
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      this.running = this.drain()
        .catch((err: unknown) => this.onError(err))
        .finally(() => {
          this.running = null;
          const again = this.wakeRequested;
          this.wakeRequested = false;
          this.schedule(again ? 0 : this.pollMs);
        });
    }, ms);
    this.timer.unref();
  }
}
