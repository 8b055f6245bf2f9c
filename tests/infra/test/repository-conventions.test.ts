/**
 * Conventions of the repository that a reader relies on: every rule the code cites (`R7`) is
 * described in docs/rules.md, and every route test names the operations it covers (`TRK-12`), so
 * that `grep TRK-12` finds the contract, the route and its tests.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const SKIP = new Set(['node_modules', 'generated', '.git', '.turbo', '.data', 'dist']);

function walk(dir: string, keep: (file: string) => boolean): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (err) {
    // A folder another test is creating or removing right now (tests/compiled's deploy output) is not source.
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  return names.flatMap((name) => {
    if (SKIP.has(name) || name.startsWith('msp-compiled-')) return [];
    const full = path.join(dir, name);
    let isDirectory: boolean;
    try {
      isDirectory = statSync(full).isDirectory();
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return []; // removed while we looked
      throw err;
    }
    if (isDirectory) return walk(full, keep);
    return keep(full) ? [full] : [];
  });
}

const rel = (file: string) => path.relative(root, file);

describe('docs/rules.md', () => {
  it('describes every rule R<n> that code, tests and documents cite', () => {
    const rules = readFileSync(path.join(root, 'docs/rules.md'), 'utf8');
    const defined = new Set([...rules.matchAll(/^## (R\d+)\b/gm)].map((m) => m[1]));
    expect(defined.size).toBeGreaterThan(0);
    const sources = ['gateway', 'services', 'packages', 'tests', 'scripts', 'bench', 'docs', 'README.md', 'ARCHITECTURE.md']
      .map((p) => path.join(root, p))
      .flatMap((p) => (statSync(p).isDirectory() ? walk(p, (f) => /\.(ts|md|prisma|sql)$/.test(f)) : [p]));
    const undefinedCitations: string[] = [];
    for (const file of sources) {
      for (const m of readFileSync(file, 'utf8').matchAll(/\bR(\d{1,3})\b/g)) {
        if (!defined.has(`R${m[1]}`)) undefinedCitations.push(`${rel(file)}: R${m[1]}`);
      }
    }
    expect(undefinedCitations).toEqual([]);
  });
});

describe('route tests name their contract ids', () => {
  it('every top-level describe that calls a contract route names operation ids (or a group, `PLS-*`) of the contract table', async () => {
    const { ROUTES } = await import('../../../packages/contracts/src/routes.ts');
    const operations = ROUTES.filter((route) => route.id !== 'WS-1').map((route) => ({
      id: route.id,
      path: new RegExp(`^/api${route.path.replace(/\{[^}]+\}/g, '[^/?]+')}(\\?.*)?$`),
    }));
    const files = [
      ...readdirSync(path.join(root, 'services')).flatMap((s) => walk(path.join(root, 'services', s, 'test'), (f) => f.endsWith('.test.ts'))),
      ...walk(path.join(root, 'tests/e2e/test'), (f) => f.endsWith('.test.ts')),
    ];
    const unnamed: string[] = [];
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      const blocks = [...text.matchAll(/^describe(?:\.\w+)?\((['`"])(.*?)\1/gm)];
      blocks.forEach((block, i) => {
        const body = text.slice(block.index, blocks[i + 1]?.index ?? text.length);
        const called = new Set<string>();
        for (const [, url] of body.matchAll(/['`](\/api\/[^'`]*)/g)) {
          const concrete = url!.replace(/\$\{[^}]*\}/g, 'x');
          for (const op of operations) if (op.path.test(concrete)) called.add(op.id);
        }
        if (called.size === 0) return;
        const title = block[2]!;
        // A block that drives an operation to test something else (a projection, a trust rule)
        // still names the operations it leans on.
        const named = /\b[A-Z]{2,6}-(\d+|\*)/.test(title) && [...title.matchAll(/\b([A-Z]{2,6})-(\d+|\*)/g)].every(([id, group]) => id.endsWith('*') ? operations.some((op) => op.id.startsWith(`${group}-`)) : operations.some((op) => op.id === id) || /^WS-\d+$/.test(id));
        if (!named) unnamed.push(`${rel(file)}: describe('${title}') calls ${[...called].join(', ')}`);
      });
    }
    expect(unnamed).toEqual([]);
  });
});
