/**
 * Every relative link of the repository's Markdown files leads somewhere: the file or folder it
 * names exists, and a `#fragment` names a heading of the Markdown file it points at (GitHub's
 * heading ids). Links to other sites, and text inside code spans and fenced blocks, are not checked.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const SKIP = new Set(['node_modules', 'generated', '.git', '.turbo', '.data', 'dist', 'coverage']);

function markdownFiles(dir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (err) {
    // A folder another test is creating or removing right now (tests/compiled's deploy output).
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
    if (isDirectory) return markdownFiles(full);
    return name.endsWith('.md') ? [full] : [];
  });
}

/** The text outside fenced blocks and code spans, line breaks kept so line numbers stay right. */
export function proseOf(markdown: string): string {
  let fenced = false;
  return markdown
    .split('\n')
    .map((line) => {
      if (/^\s*(```|~~~)/.test(line)) {
        fenced = !fenced;
        return '';
      }
      return fenced ? '' : line.replace(/`[^`]*`/g, '');
    })
    .join('\n');
}

/** GitHub's id for a heading: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
export function headingIds(markdown: string): Set<string> {
  const ids = new Set<string>();
  const seen = new Map<string, number>();
  for (const [, text] of proseOf(markdown).matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const plain = text!
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .replace(/[*_]/g, '')
      .toLowerCase();
    const base = plain.replace(/[^\p{L}\p{N}\s-]/gu, '').replace(/\s/g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    ids.add(n === 0 ? base : `${base}-${n}`);
  }
  return ids;
}

/** `[text](target)` links (images too) with a relative target, and the line each is on. */
export function relativeLinks(markdown: string): Array<{ target: string; line: number }> {
  const prose = proseOf(markdown);
  const links: Array<{ target: string; line: number }> = [];
  for (const m of prose.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
    const target = m[1]!;
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // http:, https:, mailto:
    links.push({ target, line: prose.slice(0, m.index).split('\n').length });
  }
  return links;
}

describe('Markdown links', () => {
  it('GitHub heading ids', () => {
    expect([...headingIds('# Configuration (src/config.ts)\n## Discovery (DSC-2 … DSC-7)\n## A\n## A\n')]).toEqual([
      'configuration-srcconfigts',
      'discovery-dsc-2--dsc-7',
      'a',
      'a-1',
    ]);
    expect(relativeLinks('[a](b.md#c) `[x](y)` [web](https://e.org)\n```\n[z](w)\n```\n[d](../e/ "t")')).toEqual([
      { target: 'b.md#c', line: 1 },
      { target: '../e/', line: 5 },
    ]);
  });

  it('every relative link of every *.md file resolves, anchors included', () => {
    const files = markdownFiles(root);
    expect(files.length).toBeGreaterThan(10);
    const broken: string[] = [];
    const idsOf = new Map<string, Set<string>>();
    const ids = (file: string) => {
      if (!idsOf.has(file)) idsOf.set(file, headingIds(readFileSync(file, 'utf8')));
      return idsOf.get(file)!;
    };
    for (const file of files) {
      for (const { target, line } of relativeLinks(readFileSync(file, 'utf8'))) {
        const [rawPath, fragment] = target.split('#', 2) as [string, string | undefined];
        const linked = rawPath === '' ? file : path.resolve(path.dirname(file), decodeURIComponent(rawPath));
        const where = `${path.relative(root, file)}:${line} → ${target}`;
        if (!existsSync(linked)) {
          broken.push(`${where} (no such file)`);
          continue;
        }
        if (fragment && linked.endsWith('.md') && !ids(linked).has(fragment.toLowerCase())) broken.push(`${where} (no such heading)`);
      }
    }
    expect(broken).toEqual([]);
  });
});
