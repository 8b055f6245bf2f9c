/**
 * Events produced by the billing service (`billing.<aggregate>.<verb>.v<N>`). Definitions are added
 * with the features that publish them; changes are additive only.
 */
export {};
