import { describe, expect, it } from 'vitest';
import { ConfigError } from '@msp/config';
import { loadGatewayConfig, requiredEnv } from '../src/config.js';

describe('config: defaults and derived values', () => {
  it('has local defaults for everything', () => {
    const config = loadGatewayConfig({});
    expect(config).toMatchObject({
      PORT: 8080,
      IDENTITY_URL: 'http://127.0.0.1:8081',
      BILLING_URL: 'http://127.0.0.1:8087',
      JWKS_URL: 'http://127.0.0.1:8081/.well-known/jwks.json',
      CORS_ORIGINS: ['http://localhost:3000'],
      RATE_LIMIT_CLIENT_PER_MINUTE: 1200,
      RATE_LIMIT_USER_PER_MINUTE: 600,
      UPSTREAM_TIMEOUT_MS: 30_000,
      UPLOAD_TIMEOUT_MS: 600_000,
      AUDIO_MAX_BYTES: 200 * 1024 * 1024,
      TRUST_PROXY: false,
      REDIS_KEY_PREFIX: '',
      FAST_LANE: true,
    });
    expect(loadGatewayConfig({ FAST_LANE: 'false' }).FAST_LANE).toBe(false);
  });

  it('derives JWKS_URL from IDENTITY_URL unless given, and splits CORS_ORIGINS', () => {
    const config = loadGatewayConfig({ IDENTITY_URL: 'http://identity:8081/', CORS_ORIGINS: 'https://a.example, https://b.example' });
    expect(config.JWKS_URL).toBe('http://identity:8081/.well-known/jwks.json');
    expect(config.CORS_ORIGINS).toEqual(['https://a.example', 'https://b.example']);
    expect(loadGatewayConfig({ JWKS_URL: 'http://keys/jwks' }).JWKS_URL).toBe('http://keys/jwks');
    expect(loadGatewayConfig({ WEB_BASE_URL: 'https://web.example/app' }).CORS_ORIGINS).toEqual(['https://web.example']);
  });

  it('refuses bad values', () => {
    expect(() => loadGatewayConfig({ RATE_LIMIT_CLIENT_PER_MINUTE: 'many' })).toThrow(ConfigError);
    expect(() => loadGatewayConfig({ CATALOG_URL: 'not a url' })).toThrow(ConfigError);
    expect(() => loadGatewayConfig({ FAST_LANE: 'yes' })).toThrow(ConfigError);
  });
});

describe('config: production requires every URL explicitly', () => {
  it('lists the required variables', () => {
    expect(requiredEnv).toEqual([
      'REDIS_URL',
      'WEB_BASE_URL',
      'PUBLIC_BASE_URL',
      'IDENTITY_URL',
      'CATALOG_URL',
      'MEDIA_PROCESSING_URL',
      'SOCIAL_URL',
      'MESSAGING_URL',
      'NOTIFICATION_URL',
      'BILLING_URL',
    ]);
  });

  it('throws in production when one is missing, naming it', () => {
    const complete: Record<string, string> = {
      ...Object.fromEntries(requiredEnv.map((name) => [name, name === 'REDIS_URL' ? 'redis://redis:6379' : 'http://svc:1'])),
      GATEWAY_SIGNING_KEY: 'a-production-signing-key',
      METRICS_TOKEN: 'a-production-metrics-token',
    };
    expect(loadGatewayConfig({ NODE_ENV: 'production', ...complete }).NODE_ENV).toBe('production');
    const { SOCIAL_URL: _omitted, ...missing } = complete;
    expect(() => loadGatewayConfig({ NODE_ENV: 'production', ...missing })).toThrow(/SOCIAL_URL: required in production/);
    const { GATEWAY_SIGNING_KEY: _key, ...unsigned } = complete;
    expect(() => loadGatewayConfig({ NODE_ENV: 'production', ...unsigned })).toThrow(/GATEWAY_SIGNING_KEY: required in production/);
  });
});
