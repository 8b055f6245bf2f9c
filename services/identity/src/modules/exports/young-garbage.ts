import v8 from 'node:v8';
import vm from 'node:vm';

type YoungCollector = (options: { type: 'minor'; execution: 'sync' }) => void;

let collector: YoungCollector | null | undefined;

/**
 * V8's young-generation collection (a scavenge: about a millisecond here), without starting node
 * with `--expose-gc`: V8 installs `gc` in the contexts created while that flag is on, so it is set
 * for one empty context only and unset again. Null when the runtime refuses (the stream then
 * relies on V8's own triggers).
 */
function youngCollector(): YoungCollector | null {
  if (collector !== undefined) return collector;
  const own = (globalThis as { gc?: unknown }).gc;
  if (typeof own === 'function') return (collector = own as YoungCollector);
  try {
    v8.setFlagsFromString('--expose-gc');
    const gc: unknown = vm.runInNewContext('gc');
    collector = typeof gc === 'function' ? (gc as YoungCollector) : null;
  } catch {
    // Not allowed in this runtime: the stream still works, with V8's own (later) collections.
    collector = null;
  } finally {
    v8.setFlagsFromString('--no-expose-gc');
  }
  return collector;
}

/**
 * Passes a byte stream through and collects the young generation after every `everyBytes` of it.
 *
 * Why: every socket read of the entries lands in a fresh 64-KiB buffer that is garbage as soon as
 * the upload part has copied it, and V8 collects such young buffers only when about 32 MiB of them
 * have piled up (twice its maximum semi-space; `--max-semi-space-size` does not move that trigger).
 * Streaming a large export therefore held about 32 MiB of dead buffers on top of the upload part
 * (docs/benchmarks/account-export.md); collecting every few MiB keeps that at a few MiB, for
 * about one scavenge of a millisecond or two per `everyBytes`.
 */
export async function* collectingYoungGarbage(source: AsyncIterable<Buffer>, everyBytes: number): AsyncIterable<Buffer> {
  const gc = youngCollector();
  let since = 0;
  for await (const chunk of source) {
    yield chunk;
    // The consumer asked for the next chunk: it is done with this one.
    since += chunk.length;
    if (gc && since >= everyBytes) {
      since = 0;
      gc({ type: 'minor', execution: 'sync' });
    }
  }
}
