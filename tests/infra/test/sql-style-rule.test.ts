/**
 * One style of hand-written SQL (docs/decisions.md, "One style of SQL"): eslint.config.js's
 * `sqlStyle` selectors, run with the repository's own ESLint configuration on the fixture
 * eslint/fixtures/sql-style (ignored by `pnpm lint`). A fixture line ending in `// flagged` must be
 * reported; no other line may be.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const fixture = path.join(root, 'eslint/fixtures/sql-style/tracks.repository.ts');

describe('one style of SQL: tagged templates only', () => {
  it('reports Unsafe raw queries, pg queries from strings and Prisma.sql, and nothing tagged', { timeout: 180_000 }, async () => {
    const eslint = new ESLint({ cwd: root, ignore: false });
    const [result] = await eslint.lintFiles([fixture]);
    const flagged = readFileSync(fixture, 'utf8')
      .split('\n')
      .flatMap((line, i) => (/\/\/ flagged$/.test(line) ? [i + 1] : []));
    expect(result!.messages.filter((m) => m.ruleId !== 'no-restricted-syntax')).toEqual([]);
    expect([...new Set(result!.messages.map((m) => m.line))]).toEqual(flagged);
    expect(flagged.length).toBe(6);
  });
});
