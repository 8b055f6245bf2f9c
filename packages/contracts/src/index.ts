export * from './services.js';
export * from './route-types.js';
export * from './routes.js';
export * from './enums.js';
export * from './records/index.js';
export * from './auth-keys.js';
export * from './internal.js';
