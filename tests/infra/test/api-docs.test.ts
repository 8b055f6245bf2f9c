/**
 * docs/api.md is the contract inside the repository: generated from packages/contracts,
 * packages/errors and the gateway by `pnpm docs:api`, and the only contract document code,
 * tests and docs cite (operations by id, rules by R<n> of docs/rules.md).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

import { API_DOCS_PATH, renderApiDocs } from '../../../scripts/generate-api-docs.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const rel = (file: string) => path.relative(root, file).split(path.sep).join('/');

/** Documents allowed to cite the external contract document by name (none: every file cites docs/api.md). */
export const CONTRACT_CITATION_EXEMPT: readonly RegExp[] = [];

/** The check itself names what it looks for. */
const SELF = rel(fileURLToPath(import.meta.url));

const SKIP_DIRS = new Set(['node_modules', 'generated', '.git', '.turbo', '.data', 'dist', 'coverage']);

function walk(dir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return []; // removed while we looked
    throw err;
  }
  return names.flatMap((name) => {
    if (SKIP_DIRS.has(name) || name.startsWith('msp-compiled-')) return [];
    const full = path.join(dir, name);
    let stat;
    try {
      stat = statSync(full);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw err;
    }
    if (stat.isDirectory()) return walk(full);
    return stat.isFile() && stat.size < 2_000_000 ? [full] : [];
  });
}

describe('docs/api.md', () => {
  it('is what `pnpm docs:api` generates from the code now', async () => {
    const expected = await renderApiDocs();
    let actual = '';
    try {
      actual = readFileSync(API_DOCS_PATH, 'utf8');
    } catch {
      // a missing file is stale too
    }
    expect(actual === expected, 'docs/api.md is stale: run `pnpm docs:api` and commit the result').toBe(true);
  });

  it('generates the same text twice', async () => {
    expect(await renderApiDocs()).toBe(await renderApiDocs());
  });
});

describe('contract citations', () => {
  it('no file outside the exemptions cites the external contract document instead of docs/api.md', () => {
    const pattern = /\bAPI\.md\b/;
    const offenders: string[] = [];
    for (const file of walk(root)) {
      const name = rel(file);
      if (name === SELF || CONTRACT_CITATION_EXEMPT.some((exempt) => exempt.test(name))) continue;
      const text = readFileSync(file, 'utf8');
      if (text.includes('\u0000')) continue; // binary
      text.split('\n').forEach((line, index) => {
        if (pattern.test(line)) offenders.push(`${name}:${index + 1}: ${line.trim().slice(0, 120)}`);
      });
    }
    expect(offenders, 'cite docs/api.md (an operation by its id), docs/rules.md R<n>, or the code').toEqual([]);
  });
});
