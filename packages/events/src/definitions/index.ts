export * from './identity.js';
export * from './catalog.js';
export * from './media-processing.js';
export * from './social.js';
export * from './billing.js';
export * from './messaging.js';
export * from './notification.js';
