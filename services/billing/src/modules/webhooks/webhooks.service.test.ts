import { describe, expect, it } from 'vitest';
import { AppError } from '@msp/errors';
import type { ProviderEventBody } from './provider-events.js';
import type { WebhookEventsStore } from './webhooks.repository.js';
import { WebhooksService } from './webhooks.service.js';

const event = (type: string, id = 'evt_1') => ({ id, type, created: 1_767_000_000, data: { object: { id: 'sub_1' } } });

/** A provider whose signature check accepts only `good` and answers the given body. */
function setup(body: unknown) {
  const stored = new Map<string, ProviderEventBody>();
  let wakes = 0;
  const stripe = {
    verifyEvent: (_raw: Buffer, signature: string): unknown => {
      if (signature !== 'good') throw new AppError('INVALID_SIGNATURE', 'bad signature');
      return body;
    },
  };
  const repo: WebhookEventsStore = {
    insert: (e) => {
      if (stored.has(e.id)) return Promise.resolve(false);
      stored.set(e.id, e);
      return Promise.resolve(true);
    },
  };
  const service = new WebhooksService(stripe, repo, () => void (wakes += 1));
  return { receive: (signature?: string) => service.receive(Buffer.from('{}'), signature), stored, wakes: () => wakes };
}

describe('SUB-5 webhook receipt (R17)', () => {
  it('stores a handled event once and wakes the worker; a redelivery is answered without storing', async () => {
    const { receive, stored, wakes } = setup(event('customer.subscription.updated'));
    await expect(receive('good')).resolves.toEqual({ message: 'Event received.' });
    await expect(receive('good')).resolves.toEqual({ message: 'Event already received.' });
    expect([...stored.keys()]).toEqual(['evt_1']);
    expect(wakes()).toBe(1);
  });

  it('answers INVALID_SIGNATURE for a missing or wrong signature, storing nothing', async () => {
    const { receive, stored } = setup(event('invoice.paid'));
    await expect(receive(undefined)).rejects.toMatchObject({ code: 'INVALID_SIGNATURE' });
    await expect(receive('forged')).rejects.toMatchObject({ code: 'INVALID_SIGNATURE' });
    expect(stored.size).toBe(0);
  });

  it('answers 200 and stores nothing for a type R17 does not apply', async () => {
    const { receive, stored, wakes } = setup(event('customer.created'));
    await expect(receive('good')).resolves.toEqual({ message: 'Event type customer.created is not used; ignored.' });
    expect(stored.size).toBe(0);
    expect(wakes()).toBe(0);
  });

  it('answers VALIDATION_FAILED, with the field, for verified JSON that is not an event', async () => {
    const { receive, stored } = setup({ id: 'evt_1', type: 'invoice.paid', data: { object: {} } });
    await expect(receive('good')).rejects.toMatchObject({ code: 'VALIDATION_FAILED', errors: [{ field: 'created' }] });
    expect(stored.size).toBe(0);
  });
});
