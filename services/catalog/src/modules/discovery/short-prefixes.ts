import { DurableWorker, type Logger } from '@msp/runtime';
import { SEARCH_CANDIDATES } from './discovery.repository.js';
import type { ShortPrefixesRepository, ShortPrefixKind } from './short-prefixes.repository.js';

const KINDS: ShortPrefixKind[] = ['TRACK', 'PLAYLIST', 'USER'];

/**
 * Keeps the candidates of one- and two-letter search prefixes (`search_short_prefixes`) at most
 * `everyMs` old: the first refresh `firstRunMs` after the start, then every `everyMs / 4`, each kind
 * recomputed only when it is older than `everyMs` and no other replica is at it (so replicas share
 * the work). At a million tracks a refresh of every kind takes a few seconds of PostgreSQL.
 */
export function startShortPrefixRefresher(
  repo: Pick<ShortPrefixesRepository, 'refresh'>,
  logger: Logger,
  everyMs: number,
  firstRunMs = Math.min(everyMs, 30_000),
): { stop(): Promise<void> } {
  const worker = new DurableWorker({
    name: 'catalog-search-short-prefixes',
    logger,
    pollMs: Math.max(1_000, Math.floor(everyMs / 4)),
    firstRunMs,
    batch: async (ctx) => {
      let done = 0;
      for (const kind of KINDS) {
        if (ctx.stopping) break;
        const started = Date.now();
        if (await repo.refresh(kind, SEARCH_CANDIDATES, everyMs)) {
          done += 1;
          logger.info({ kind, ms: Date.now() - started }, 'search short prefixes refreshed');
        }
      }
      return { done };
    },
  });
  void worker.start();
  return worker;
}
