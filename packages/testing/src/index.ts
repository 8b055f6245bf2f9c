export { testInfra, ensureInfra, type TestInfra } from './infra.js';
export { createTestDatabase, type TestDatabase } from './database.js';
export { startS3rver, type S3rverHandle } from './s3rver.js';
export { startNatsServer, type NatsServerHandle } from './nats-server.js';
export { waitFor, type WaitForOptions } from './wait-for.js';
export { createTestJwks, type TestJwks } from './jwks.js';
export { freePort } from './ports.js';
export { startServiceTestEnv, type ServiceTestEnv } from './service-env.js';
export { dropRedisKeys } from './redis-keys.js';
