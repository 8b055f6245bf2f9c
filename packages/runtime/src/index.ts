export { startInfrastructure, type Infrastructure, type InfrastructureConfig, type InfrastructureOptions } from './infrastructure.js';
