export { startInfrastructure, type Infrastructure, type InfrastructureConfig, type InfrastructureOptions } from './infrastructure.js';
export { startUserCountProjections, startUserProjection } from './user-projection.js';
export {
  bansCopy,
  blocksCopy,
  defineProjection,
  followCountsCopy,
  followsCopy,
  onEvent,
  startProjection,
  trackCountsCopy,
  type BanChange,
  type BansCopy,
  type BlocksCopy,
  type FollowCounts,
  type FollowCountsCopy,
  type FollowsCopy,
  type ProjectionDeps,
  type ProjectionSpec,
  type ProjectionStep,
  type TrackCountsCopy,
} from './projection.js';
export { blocksCopyTable, followsCopyTable } from './copy-tables.js';
export { createServiceApp, type ServiceAppOptions, type Stoppable } from './service-app.js';
export { installAdminAudit, type AdminAuditStore } from './admin-audit.js';
export { silentLogger, type Logger } from './logger.js';
export { removeInBatches, type BatchRemoval, type RemovalSummary, type RemoveInBatchesOptions } from './batched-removal.js';
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
export { defineExportPart, type ExportPartDeps, type ExportPartSource } from './export-part.js';
