export { loadConfig, ConfigError } from './load.js';
export {
  commonEnvShape,
  serviceEnvShape,
  serviceUrlsShape,
  SERVICE_REQUIRED_IN_PRODUCTION,
  DEFAULT_PORTS,
  SERVICE_NAMES,
  databaseUrlFor,
  type ServiceName,
} from './shapes.js';
