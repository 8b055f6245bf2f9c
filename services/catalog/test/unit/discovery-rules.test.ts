import { describe, expect, it } from 'vitest';
import { parseLink } from '../../src/modules/discovery/resolve-link.js';
import { candidatesQuery, correctable, MAX_COMPLETIONS, searchTerms } from '../../src/modules/discovery/search-query.js';
import { composeStation } from '../../src/modules/discovery/discovery.repository.js';
import { historyStart } from '../../src/modules/tracks/history-index.js';

const web = 'https://music.example';

describe('DSC-4 R1 web links (unit, no database)', () => {
  it('reads profile, track and playlist links, absolute on the web base URL or bare', () => {
    expect(parseLink(`${web}/Ann`, web)).toEqual({ type: 'USER', username: 'ann' });
    expect(parseLink('/ann/first-light', web)).toEqual({ type: 'TRACK', username: 'ann', slug: 'first-light', token: null });
    expect(parseLink('ann/sets/night-drive?token=abcdefgh12', web)).toEqual({ type: 'PLAYLIST', username: 'ann', slug: 'night-drive', token: 'abcdefgh12' });
  });

  it('R5: a secret token on a track or playlist only; anything not ours is null', () => {
    expect(parseLink(`${web}/ann?token=abcdefgh12`, web)).toBeNull();
    expect(parseLink('https://elsewhere.example/ann/first-light', web)).toBeNull();
    expect(parseLink('javascript:alert(1)', web)).toBeNull();
    expect(parseLink('/ann/first-light?token=short', web)).toBeNull();
    expect(parseLink('/ann/a/b/c', web)).toBeNull();
    expect(parseLink('   ', web)).toBeNull();
  });

  it('honours a web base URL with a path prefix', () => {
    expect(parseLink('https://host.example/app/ann/first-light', 'https://host.example/app')).toMatchObject({ type: 'TRACK', slug: 'first-light' });
    expect(parseLink('https://host.example/ann/first-light', 'https://host.example/app')).toBeNull();
  });
});

describe('DSC-3 search terms (unit)', () => {
  it('keeps letters and digits only, so no tsquery operator reaches SQL; the last word is a prefix', () => {
    expect(searchTerms("Daft Punk's & | !one")).toEqual({
      exact: "'daft' & 'punk' & 's' & 'one'",
      prefix: "'daft' & 'punk' & 's' & 'one':*",
      text: 'daft punk s one',
      words: ['daft', 'punk', 's', 'one'],
    });
    expect(searchTerms('  ?! ')).toBeNull();
    expect(searchTerms('Björk')?.text).toBe('björk');
  });
});

describe('DSC-3 candidates query (unit)', () => {
  it('the last word as a prefix, or as its few completions; with corrections, each word or one of them; no operator from the vocabulary', () => {
    const terms = searchTerms('midnigth blo')!;
    const open = { match: "'midnigth' & ('blo' | 'blo':*)", anchor: "'midnigth'" };
    expect(candidatesQuery(terms, null)).toEqual(open);
    expect(candidatesQuery(terms, ['blo', 'bloom', 'blossom'])).toEqual({ match: "'midnigth' & ('blo' | 'bloom' | 'blossom')", anchor: null });
    // Too many completions, or one that is not a plain word: the prefix stays, and the index looks up the other words.
    const many = Array.from({ length: MAX_COMPLETIONS + 1 }, (_, i) => `blo${i}`);
    expect(candidatesQuery(terms, many)).toEqual(open);
    expect(candidatesQuery(terms, ["blo' | 'x"])).toEqual(open);
    expect(candidatesQuery(terms, [])).toEqual(open);
    const fixes = new Map([
      ['midnigth', ['midnight', 'midnights']],
      ['blo', ['bloom', "x' | 'y"]],
    ]);
    expect(candidatesQuery(terms, null, fixes)).toEqual({
      match: "('midnigth' | 'midnight' | 'midnights') & ('blo' | 'blo':* | 'bloom')",
      anchor: "('midnigth' | 'midnight' | 'midnights')",
    });
    expect(candidatesQuery(searchTerms('love')!, ['love', 'lovely'])).toEqual({ match: "('love' | 'lovely')", anchor: null });
    // A single word keeps its prefix in the index lookup (nothing else to look up).
    expect(candidatesQuery(searchTerms('b')!, null)).toEqual({ match: "('b' | 'b':*)", anchor: null });
  });

  it('corrects and completes words of three letters or more that are not all digits', () => {
    expect(['ab', 'abc', '2024', 'r2d2', 'été'].map(correctable)).toEqual([false, true, false, true, true]);
  });
});

describe('DSC-6 / DSC-7 station composition (unit)', () => {
  it('merges parts in the day order (rank, then id), each track once, at most the limit', () => {
    const pick = (id: number, rank: string) => ({ id, artistId: id * 10, rank });
    const genre = [pick(1, 'a'), pick(2, 'c'), pick(3, 'e')];
    const artist = [pick(4, 'b'), pick(2, 'c'), pick(5, 'c')];
    expect(composeStation([genre, artist], 10).map((p) => p.id)).toEqual([1, 4, 2, 5, 3]);
    expect(composeStation([genre, artist], 3).map((p) => p.id)).toEqual([1, 4, 2]);
    expect(composeStation([], 3)).toEqual([]);
  });

  it('leaves out the tracks asked (the likes station: the liked ones) and still fills the limit; sorts a part out of order first', () => {
    const pick = (id: number, rank: string) => ({ id, artistId: id * 10, rank });
    const genre = [pick(1, 'a'), pick(2, 'c'), pick(3, 'e')];
    const artist = [pick(5, 'c'), pick(4, 'b')];
    expect(composeStation([genre, artist], 3, new Set([1, 2])).map((p) => p.id)).toEqual([4, 5, 3]);
  });
});

describe('USR-17 history anchors (unit)', () => {
  const outline = { total: 350, step: 100, anchors: [1, 2, 3].map((k) => ({ at: `2026-01-0${k}T00:00:00.000Z`, trackId: k })) };
  it('starts a deep page at the anchor at or before its offset and skips the rest; before the first anchor, from the start', () => {
    expect(historyStart(outline, 0)).toBeNull();
    expect(historyStart(outline, 99)).toBeNull();
    expect(historyStart(outline, 100)).toEqual({ anchor: outline.anchors[0], skip: 0 });
    expect(historyStart(outline, 260)).toEqual({ anchor: outline.anchors[1], skip: 60 });
    // Past the last anchor (the history shrank since the outline, or a page beyond the end): from the last one.
    expect(historyStart(outline, 980)).toEqual({ anchor: outline.anchors[2], skip: 680 });
    expect(historyStart({ total: 5, step: 100, anchors: [] }, 500)).toBeNull();
    // The step the outline was walked with (20 now: a page of 20 starts at its anchor, nothing skipped).
    const fine = { total: 70, step: 20, anchors: outline.anchors };
    expect(historyStart(fine, 19)).toBeNull();
    expect(historyStart(fine, 40)).toEqual({ anchor: outline.anchors[1], skip: 0 });
    expect(historyStart(fine, 50)).toEqual({ anchor: outline.anchors[1], skip: 10 });
  });
});
