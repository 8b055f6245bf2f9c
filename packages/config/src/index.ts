export { loadConfig, ConfigError } from './load.js';
export { commonEnvShape, serviceEnvShape, serviceUrlsShape, DEFAULT_PORTS, SERVICE_NAMES, databaseUrlFor, type ServiceName } from './shapes.js';
