/**
 * Events produced by the messaging service (`messaging.<aggregate>.<verb>.v<N>`). Definitions are added
 * with the features that publish them; changes are additive only.
 */
export {};
