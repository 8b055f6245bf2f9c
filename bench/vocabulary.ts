/**
 * The long tail: made-up words of two or three syllables (40³ + 40² ≈ 65,600 of them), one in about
 * a third of all titles, a third of the playlists and a quarter of the artists' display names. Each
 * such word names only a handful of items (rare words: fewer than 20 matches), and they share
 * trigrams with each other and with the common words, as real titles do (a typo-tolerant search
 * cannot separate them by trigrams alone).
 */
export const SYLLABLES = `ka lo mi ra ven dor sil tha mor bri el an is or ta ne qui zel ro va len dri sha ul fen gar io pel vin tor
  ash ber cyn del fa gol hin jor kel lum`
  .split(/\s+/)
  .filter(Boolean);
