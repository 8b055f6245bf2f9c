/**
 * Events produced by the notification service (`notification.<aggregate>.<verb>.v<N>`). Definitions are added
 * with the features that publish them; changes are additive only.
 */
export {};
