import { describe, expect, it } from 'vitest';
import { parseLink } from '../../src/modules/discovery/resolve-link.js';
import { searchTerms } from '../../src/modules/discovery/search-query.js';

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
    });
    expect(searchTerms('  ?! ')).toBeNull();
    expect(searchTerms('Björk')?.text).toBe('björk');
  });
});
