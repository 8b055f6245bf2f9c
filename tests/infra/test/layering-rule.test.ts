/**
 * The layering rule of ARCHITECTURE.md ("Enforced layering"), msp/persistence-in-repositories in
 * eslint/msp-plugin.js, run with the repository's own ESLint configuration on the fixtures of
 * eslint/fixtures/layering (ignored by `pnpm lint`). A fixture line ending in `// flagged` must be
 * reported; no other line may be.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const fixtures = path.join(root, 'eslint/fixtures/layering');
const RULE = 'msp/persistence-in-repositories';

function flaggedLines(file: string): number[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .flatMap((line, i) => (/\/\/ flagged$/.test(line) ? [i + 1] : []));
}

describe('layering: persistence only in *.repository.ts', () => {
  // Type-aware linting builds a TypeScript program for the fixtures (the billing Prisma client, pg's types).
  it('reports every use of a database handle in a service, and no pass-through of a transaction handle in a consumer', { timeout: 180_000 }, async () => {
    const eslint = new ESLint({ cwd: root, ignore: false });
    const service = path.join(fixtures, 'subscriptions.service.ts');
    const consumer = path.join(fixtures, 'follows.consumer.ts');
    const [serviceResult, consumerResult] = await eslint.lintFiles([service, consumer]);

    expect(serviceResult!.messages.filter((m) => m.ruleId !== RULE)).toEqual([]);
    const reported = serviceResult!.messages.map((m) => m.line);
    expect([...new Set(reported)]).toEqual(flaggedLines(service));
    const texts = serviceResult!.messages.map((m) => m.message);
    for (const kind of ['(PrismaClient)', '(pg.PoolClient)', '(Prisma model delegate SubscriptionDelegate)', '(SqlExecutor)', '(transaction client)', "'pg' is Prisma or pg"]) {
      expect(texts.some((t) => t.includes(kind))).toBe(true);
    }
    expect(texts.every((t) => t.includes('persistence lives in *.repository.ts'))).toBe(true);

    expect(consumerResult!.messages).toEqual([]);
  });
});
