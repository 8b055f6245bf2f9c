import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Redis } from 'ioredis';
import { generateHOTP } from '@oslojs/otp';
import { AppError } from '@msp/errors';
import type { IdentityConfig } from '../../config.js';
import type { TokenUser } from '../accounts/accounts.repository.js';
import type { KnownDevice } from '../sessions/known-devices.repository.js';
import type { IssuedTokens } from '../sessions/sessions.service.js';
import { decodeTotpSecret, MfaCrypto, recoveryCodeHash, TOTP_PERIOD_SECONDS } from './mfa.crypto.js';
import type { MfaStore, TotpFactorRow } from './mfa.repository.js';
import { MfaService, MFA_DEVICE_TRUST_DAYS } from './mfa.service.js';

const crypto = new MfaCrypto(randomBytes(32));
const config = { MFA_ISSUER: 'MSP' } as IdentityConfig;
const client = { ip: '203.0.113.1', userAgent: 'browser-a', knownDevice: null };
const ann = { id: 7, email: 'ann@example.com', role: 'LISTENER', isBanned: false, suspendedUntil: null, deleteAt: null } as TokenUser;
const codeAt = (secret: Uint8Array, now = Date.now()) => generateHOTP(secret, BigInt(Math.floor(now / 1000 / TOTP_PERIOD_SECONDS)), 6);

/** Ann's factor, recovery codes and device marks in memory; Redis as a Map; a throttle that counts. */
function setup(opts: { deviceVerifiedAt?: Date } = {}) {
  let throttled = false;
  let factor: TotpFactorRow | null = null;
  let recovery = new Set<string>();
  const redis = new Map<string, string>();
  const log: string[] = [];
  const repo: MfaStore = {
    findTokenUser: (id) => Promise.resolve(id === ann.id ? ann : null),
    factor: () => Promise.resolve(factor),
    startEnrolment: (_id, secret) => {
      if (factor?.confirmedAt) return Promise.resolve(false);
      factor = { secret, confirmedAt: null, lastCounter: null };
      return Promise.resolve(true);
    },
    acceptStep: (_id, step, confirm) => {
      if (!factor || (factor.lastCounter !== null && step <= factor.lastCounter)) return Promise.resolve(false);
      factor = { ...factor, lastCounter: step, confirmedAt: confirm ? new Date(Date.now() - 1000) : factor.confirmedAt };
      return Promise.resolve(true);
    },
    saveRecoveryCodes: (_id, hashes) => {
      recovery = new Set(hashes);
      return Promise.resolve();
    },
    useRecoveryCode: (_id, hash) => Promise.resolve(recovery.delete(hash)),
    removeFactor: () => {
      factor = null;
      return Promise.resolve();
    },
    recoveryCodesLeft: () => Promise.resolve(recovery.size),
    deviceVerifiedAt: () => Promise.resolve(opts.deviceVerifiedAt ?? null),
    markDeviceVerified: (device) => {
      log.push(`device verified ${'id' in device ? device.id : device.token}`);
      return Promise.resolve();
    },
  };
  const throttle = {
    assertOpen: () => (throttled ? Promise.reject(new AppError('RATE_LIMITED', 'wait')) : Promise.resolve()),
    recordFailure: () => {
      log.push('failure');
      return Promise.resolve();
    },
    clear: () => Promise.resolve(),
  };
  const fakeRedis = {
    set: (key: string, value: string) => {
      redis.set(key, value);
      return Promise.resolve('OK');
    },
    get: (key: string) => Promise.resolve(redis.get(key) ?? null),
    del: (key: string) => Promise.resolve(redis.delete(key) ? 1 : 0),
  } as unknown as Pick<Redis, 'set' | 'get' | 'del'>;
  const sessions = { start: () => Promise.resolve({ sessionId: 's-1' } as IssuedTokens) };
  const devices = { find: () => Promise.resolve(null), remember: () => Promise.resolve('device-token') };
  const passkeys = {
    list: () => Promise.resolve([]),
    authenticationOptions: () => Promise.reject(new Error('not used')),
    verifyAssertion: () => Promise.reject(new Error('not used')),
  } as unknown as ConstructorParameters<typeof MfaService>[7];
  const service = new MfaService(repo, crypto, throttle, fakeRedis, config, sessions, devices, passkeys);
  /** Enrols and confirms; answers the secret and the recovery codes. */
  const enable = async () => {
    const { secret } = await service.enrol(ann.id);
    const raw = decodeTotpSecret(secret);
    const { recoveryCodes } = await service.confirm(ann.id, codeAt(raw, Date.now() - TOTP_PERIOD_SECONDS * 1000));
    return { raw, recoveryCodes };
  };
  return { service, enable, log, factor: () => factor, closeThrottle: () => (throttled = true) };
}

describe('MFA-1 / MFA-2 enrolment', () => {
  it('turns the factor on with the first valid code and answers ten recovery codes', async () => {
    const { service, enable, factor } = setup();
    const { recoveryCodes } = await enable();
    expect(recoveryCodes).toHaveLength(10);
    expect(factor()?.confirmedAt).toBeInstanceOf(Date);
    await expect(service.enrol(ann.id)).rejects.toMatchObject({ code: 'MFA_ALREADY_ENABLED' });
    await expect(service.confirm(ann.id, '000000')).rejects.toMatchObject({ code: 'MFA_ALREADY_ENABLED' });
  });

  it('answers MFA_NOT_PENDING without an enrolment, and INVALID_MFA_CODE (counted) for a wrong code', async () => {
    const { service, log } = setup();
    await expect(service.confirm(ann.id, '123456')).rejects.toMatchObject({ code: 'MFA_NOT_PENDING' });
    await service.enrol(ann.id);
    await expect(service.confirm(ann.id, 'abcdef')).rejects.toMatchObject({ code: 'INVALID_MFA_CODE' });
    expect(log).toEqual(['failure']);
  });

  it('shows the secret once, in an otpauth URI naming the issuer and the account', async () => {
    const { service } = setup();
    const { otpauthUri, secret } = await service.enrol(ann.id);
    expect(otpauthUri).toMatch(/^otpauth:\/\/totp\/MSP:ann%40example\.com\?/);
    expect(otpauthUri).toContain(`secret=${secret}`);
  });
});

describe('MFA-3 turn off', () => {
  it('refuses a replayed code, accepts a recovery code once, and answers MFA_NOT_ENABLED when off', async () => {
    const { service, enable, factor } = setup();
    const { raw, recoveryCodes } = await enable();
    await expect(service.disable(ann.id, { code: codeAt(raw, Date.now() - TOTP_PERIOD_SECONDS * 1000) })).rejects.toMatchObject({ code: 'INVALID_MFA_CODE' });
    await expect(service.verifyProof(ann.id, { recoveryCode: recoveryCodes[0]!.toUpperCase() })).resolves.toBeUndefined();
    await expect(service.disable(ann.id, { recoveryCode: recoveryCodes[0]! })).rejects.toMatchObject({ code: 'INVALID_MFA_CODE' });
    await expect(service.disable(ann.id, { code: codeAt(raw) })).resolves.toEqual({ message: 'Two-factor sign-in is off.' });
    expect(factor()).toBeNull();
    await expect(service.disable(ann.id, { code: codeAt(raw) })).rejects.toMatchObject({ code: 'MFA_NOT_ENABLED' });
  });

  it('refuses every proof, even a right one, while the throttle is closed', async () => {
    const { service, enable, closeThrottle } = setup();
    const { raw, recoveryCodes } = await enable();
    closeThrottle();
    await expect(service.verifyProof(ann.id, { recoveryCode: recoveryCodes[0]! })).rejects.toMatchObject({ code: 'RATE_LIMITED' });
    await expect(service.disable(ann.id, { code: codeAt(raw) })).rejects.toMatchObject({ code: 'RATE_LIMITED' });
  });

  it('reads a recovery code without its separators or case', () => {
    expect(recoveryCodeHash('abcd-efgh-ijkl-mnop')).toBe(recoveryCodeHash('ABCDEFGHIJKLMNOP'));
  });
});

describe('AUTH-1 second step and MFA-4', () => {
  it('asks nothing while two-factor sign-in is off', async () => {
    await expect(setup().service.challenge(ann, client, null)).resolves.toBeNull();
  });

  it('skips the second step on a device that passed one in the last 30 days, after the factor was turned on', async () => {
    const device: KnownDevice = { id: 3, userId: ann.id };
    const recent = setup({ deviceVerifiedAt: new Date() });
    await recent.enable();
    await expect(recent.service.challenge(ann, client, device)).resolves.toBeNull();
    const stale = setup({ deviceVerifiedAt: new Date(Date.now() - (MFA_DEVICE_TRUST_DAYS + 1) * 86_400_000) });
    await stale.enable();
    await expect(stale.service.challenge(ann, client, device)).resolves.toMatch(/^mfa_/);
  });

  it('completes once, from the same client only, and marks the device verified', async () => {
    const { service, enable, log } = setup();
    const { recoveryCodes } = await enable();
    const token = (await service.challenge(ann, client, null))!;
    await expect(service.complete(token, { recoveryCode: recoveryCodes[1]! }, { ...client, userAgent: 'browser-b' })).rejects.toMatchObject({
      code: 'INVALID_MFA_TOKEN',
    });
    await expect(service.complete(token, { recoveryCode: recoveryCodes[1]! }, client)).resolves.toMatchObject({
      knownDevice: 'device-token',
      issued: { sessionId: 's-1' },
    });
    expect(log).toContain('device verified device-token');
    await expect(service.complete(token, { recoveryCode: recoveryCodes[2]! }, client)).rejects.toMatchObject({ code: 'INVALID_MFA_TOKEN' });
    await expect(service.complete('not-a-token', { code: '123456' }, client)).rejects.toMatchObject({ code: 'INVALID_MFA_TOKEN' });
  });

  it('answers INVALID_MFA_CODE for a wrong code and keeps the attempt alive', async () => {
    const { service, enable } = setup();
    const { recoveryCodes } = await enable();
    const token = (await service.challenge(ann, client, null))!;
    await expect(service.complete(token, { code: '000000' }, client)).rejects.toMatchObject({ code: 'INVALID_MFA_CODE' });
    await expect(service.complete(token, { recoveryCode: recoveryCodes[0]! }, client)).resolves.toMatchObject({ issued: { sessionId: 's-1' } });
  });
});
