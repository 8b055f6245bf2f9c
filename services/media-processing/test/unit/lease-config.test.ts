import { describe, expect, it } from 'vitest';
import { ConfigError } from '@msp/config';
import { loadMediaProcessingConfig } from '../../src/config.js';

describe('media job lease and heartbeat configuration', () => {
  it('defaults to a 15-s lease renewed every 5 s, and no fixed worker id (the host name)', () => {
    const config = loadMediaProcessingConfig({});
    expect(config).toMatchObject({ JOB_LEASE_MS: 15_000, JOB_HEARTBEAT_MS: 5000 });
    expect(config.WORKER_ID).toBeUndefined();
  });

  it('renews a short lease every third of it unless told otherwise', () => {
    expect(loadMediaProcessingConfig({ JOB_LEASE_MS: '5000' }).JOB_HEARTBEAT_MS).toBe(1666);
    expect(loadMediaProcessingConfig({ JOB_LEASE_MS: '60000', JOB_HEARTBEAT_MS: '2000', WORKER_ID: 'media-0' })).toMatchObject({
      JOB_LEASE_MS: 60_000,
      JOB_HEARTBEAT_MS: 2000,
      WORKER_ID: 'media-0',
    });
  });

  it('refuses a heartbeat longer than a third of the lease', () => {
    expect(() => loadMediaProcessingConfig({ JOB_LEASE_MS: '15000', JOB_HEARTBEAT_MS: '6000' })).toThrow(ConfigError);
    expect(() => loadMediaProcessingConfig({ JOB_LEASE_MS: '15000', JOB_HEARTBEAT_MS: '6000' })).toThrow(/JOB_HEARTBEAT_MS: must be at most a third/);
  });
});
