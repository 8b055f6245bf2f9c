/**
 * DSC-3 query text → the three forms the search SQL needs. Words are runs of letters and digits
 * (anything else separates them), so the tsquery text never carries operators from the user.
 */
export interface SearchTerms {
  /** All words must match exactly: `'w1' & 'w2'`. */
  exact: string;
  /** The last word may be a prefix (search as you type): `'w1' & 'w2':*`. */
  prefix: string;
  /** The words joined by spaces, for trigram similarity (typos). */
  text: string;
}

export function searchTerms(q: string): SearchTerms | null {
  const words = q.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  if (words.length === 0) return null;
  const quoted = words.slice(0, 16).map((w) => `'${w}'`);
  return {
    exact: quoted.join(' & '),
    prefix: [...quoted.slice(0, -1), `${quoted[quoted.length - 1]}:*`].join(' & '),
    text: words.join(' '),
  };
}
