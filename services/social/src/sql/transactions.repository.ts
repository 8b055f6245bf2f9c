import type { SqlExecutor } from '@msp/events';
import type { PrismaClient } from '../generated/prisma/client.js';

const TX = { maxWait: 10_000, timeout: 10_000 };

/**
 * A unit of work: the services run their writes and the outbox row of the event they cause in
 * one transaction without knowing Prisma (the repositories take the `tx` they are handed).
 */
export interface Transactions {
  run<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T>;
}

export class PrismaTransactions implements Transactions {
  constructor(private readonly prisma: PrismaClient) {}

  run<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    return this.prisma.$transaction((tx) => work(tx), TX);
  }
}
