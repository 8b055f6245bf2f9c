import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, serviceEnvShape } from '../src/index.js';

describe('loadConfig', () => {
  it('gives local defaults so no .env file is needed', () => {
    const config = loadConfig(serviceEnvShape('media-processing'), { env: {} });
    expect(config.PORT).toBe(8083);
    expect(config.DATABASE_URL).toBe('postgresql://postgres@127.0.0.1:5432/msp_media_processing');
    expect(config.DB_AUTO_MIGRATE).toBe(true);
    expect(config.S3_BUCKET).toBe('msp-media-processing');
  });

  it('parses typed values and rejects bad ones with every problem listed', () => {
    expect(loadConfig(serviceEnvShape('social'), { env: { PORT: '9000', DB_AUTO_MIGRATE: 'false' } })).toMatchObject({ PORT: 9000, DB_AUTO_MIGRATE: false });
    expect(loadConfig(serviceEnvShape('social'), { env: {} }).LOG_BUFFER_BYTES).toBe(4096);
    expect(loadConfig(serviceEnvShape('social'), { env: { LOG_BUFFER_BYTES: '0' } }).LOG_BUFFER_BYTES).toBe(0);
    expect(loadConfig(serviceEnvShape('social'), { env: {} }).REDIS_KEY_PREFIX).toBe('');
    expect(loadConfig(serviceEnvShape('social'), { env: { REDIS_KEY_PREFIX: 'staging:' } }).REDIS_KEY_PREFIX).toBe('staging:');
    const attempt = () =>
      loadConfig(serviceEnvShape('social'), {
        env: { PORT: 'eighty', DATABASE_URL: 'nope', LOG_LEVEL: 'loud', LOG_BUFFER_BYTES: '16384', REDIS_KEY_PREFIX: 'x'.repeat(101) },
      });
    expect(attempt).toThrow(ConfigError);
    try {
      attempt();
    } catch (err) {
      expect((err as ConfigError).problems.map((p) => p.split(':')[0])).toEqual(
        expect.arrayContaining(['PORT', 'DATABASE_URL', 'LOG_LEVEL', 'LOG_BUFFER_BYTES', 'REDIS_KEY_PREFIX']),
      );
    }
  });

  it('requires the production variables to be set explicitly in production', () => {
    expect(() => loadConfig(serviceEnvShape('billing'), { env: { NODE_ENV: 'production' }, requiredInProduction: ['DATABASE_URL', 'NATS_URL'] })).toThrow(
      /DATABASE_URL: required in production[\s\S]*NATS_URL: required in production/,
    );
  });
});
