export { startInfrastructure, type Infrastructure, type InfrastructureConfig, type InfrastructureOptions } from './infrastructure.js';
export { startUserCountProjections, startUserProjection } from './user-projection.js';
export { createServiceApp, type ServiceAppOptions, type Stoppable } from './service-app.js';
export { installAdminAudit, type AdminAuditStore } from './admin-audit.js';
export { silentLogger, type Logger } from './logger.js';
export { DurableWorker, WorkerStoppedError, type BatchContext, type BatchOutcome, type DurableWorkerOptions } from '@msp/events';
export { CatalogClient, CatalogUnavailableError, whenCatalogUnavailable, type CatalogClientLogger, type CatalogViewer } from './clients/catalog.client.js';
export {
  EXPORT_PART_URL_SECONDS,
  exportJson,
  pages,
  startExportPartProducer,
  type ExportFile,
  type ExportPartProducerOptions,
  type ExportSection,
} from './account-export.js';
