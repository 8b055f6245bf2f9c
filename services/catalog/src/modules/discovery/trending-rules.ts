/** R18 weights of the trending score. */
export const TRENDING_WEIGHTS = { plays: 1, likes: 3, reposts: 5, comments: 2 } as const;
export type StatColumn = keyof typeof TRENDING_WEIGHTS;

/** Days in the trending window: today (UTC) and the 6 before it. */
export const TRENDING_DAYS = 7;
