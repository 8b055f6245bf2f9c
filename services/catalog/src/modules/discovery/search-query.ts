/**
 * DSC-3 query text → the forms the search SQL needs. Words are runs of letters and digits
 * (anything else separates them), so the tsquery text never carries operators from the user.
 * Accents are folded in SQL (`msp_fold`, the same function the documents are built with).
 */
export interface SearchTerms {
  /** All words must match exactly: `'w1' & 'w2'`. */
  exact: string;
  /** The last word may be a prefix (search as you type): `'w1' & 'w2':*`. */
  prefix: string;
  /** The words joined by spaces, for trigram similarity (ranking). */
  text: string;
  /** The words themselves (at most MAX_WORDS), for typo corrections. */
  words: string[];
}

/** Words of a query that count; the rest are ignored (a query is at most 100 characters). */
export const MAX_WORDS = 16;
/** Words shorter than this, or made of digits only, are never corrected (trigrams say nothing about them). */
export const MIN_CORRECTED_LENGTH = 3;

export function searchTerms(q: string): SearchTerms | null {
  const all = q.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  if (all.length === 0) return null;
  const words = all.slice(0, MAX_WORDS);
  const quoted = words.map((w) => `'${w}'`);
  return {
    exact: quoted.join(' & '),
    prefix: [...quoted.slice(0, -1), `${quoted[quoted.length - 1]}:*`].join(' & '),
    text: all.join(' '),
    words,
  };
}

/** A word worth correcting against the vocabulary. */
export function correctable(word: string): boolean {
  return [...word].length >= MIN_CORRECTED_LENGTH && !/^\p{N}+$/u.test(word);
}

/** At most this many completions replace a prefix; a prefix with more stays a prefix (`'w':*`). */
export const MAX_COMPLETIONS = 30;

/** A vocabulary word that may go into a tsquery: letters and digits only, like the query's words, so it cannot carry an operator. */
const plainWord = (w: string) => /^[\p{L}\p{N}]+$/u.test(w);

/** The candidates' tsquery, and the part of it the full-text index should look up. */
export interface CandidatesQuery {
  /** Every word (the last also as a prefix, or as its completions; each word or one of its corrections). */
  match: string;
  /**
   * The words but the last, when the last stays a prefix: the index looks these up and `match` is
   * checked on the rows found. A prefix with many completions (or of fewer than 3 characters) makes
   * the index collect every item of every word it starts (hundreds of thousands for "lo"), even next
   * to a word that nothing has; as a check on the rows of the other words it costs nothing.
   */
  anchor: string | null;
}

/**
 * The candidates' query: every word, the last one also as a prefix. A prefix with few completions in
 * the vocabulary (at most MAX_COMPLETIONS, `completions`) is written as those words instead: the
 * full-text index then intersects exact words. With `fixes` (the typo-tolerant pass), each word may
 * also be one of its corrections.
 */
export function candidatesQuery(
  terms: SearchTerms,
  completions: readonly string[] | null,
  fixes: ReadonlyMap<string, readonly string[]> = new Map(),
): CandidatesQuery {
  const last = terms.words.length - 1;
  let prefixStays = false;
  const clauses = terms.words.map((w, i) => {
    const alternatives = new Set([`'${w}'`]);
    if (i === last) {
      const complete = completions && completions.length > 0 && completions.length <= MAX_COMPLETIONS ? completions.filter(plainWord) : null;
      if (complete && complete.length === completions!.length) for (const c of complete) alternatives.add(`'${c}'`);
      else {
        alternatives.add(`'${w}':*`);
        prefixStays = true;
      }
    }
    for (const fix of fixes.get(w) ?? []) if (plainWord(fix)) alternatives.add(`'${fix}'`);
    const list = [...alternatives];
    return list.length === 1 ? list[0]! : `(${list.join(' | ')})`;
  });
  return { match: clauses.join(' & '), anchor: prefixStays && clauses.length > 1 ? clauses.slice(0, -1).join(' & ') : null };
}
