import { describe, expect, it } from 'vitest';
import type { DeliveryRow, EndpointRow, WebhooksRepository } from './webhooks.repository.js';
import { MAX_WEBHOOKS_PER_APP, WebhooksService } from './webhooks.service.js';

const OWNER = 1;
const APP = 5;
const production = { production: true };
// An address literal: the URL rules are checked without a DNS lookup.
const PUBLIC_URL = 'https://8.8.8.8/hooks';

interface App {
  ownerId: number;
  deleted: boolean;
  suspended: boolean;
}

const delivery = (endpointId: number, overrides: Partial<DeliveryRow> = {}): DeliveryRow => ({
  id: 'd-1',
  endpointId,
  eventId: 'e-1',
  eventType: 'track.published',
  resourceKey: 'track:1',
  body: '{}',
  status: 'FAILED',
  attempts: 3,
  nextAttemptAt: new Date(),
  responseCode: 500,
  latencyMs: 12,
  lastError: 'HTTP 500',
  redeliveryOf: null,
  createdAt: new Date('2026-01-01T00:00:00Z'),
  deliveredAt: null,
  ...overrides,
});

/** Apps and endpoints in memory; the repository is a class, so the fake of the methods used is cast. */
function setup(app: App | null) {
  const endpoints = new Map<number, EndpointRow>();
  const deliveries = new Map<string, DeliveryRow>();
  const since: Date[] = [];
  let nextId = 1;
  let woken = 0;
  const repo = {
    findApp: () => Promise.resolve(app),
    createEndpoint: (data: { appId: number; ownerId: number; url: string; events: string[]; secret: string }, max: number) => {
      if ([...endpoints.values()].filter((e) => e.appId === data.appId).length >= max) return Promise.resolve(null);
      const row: EndpointRow = { ...data, id: nextId++, status: 'ACTIVE', failingSince: null, disabledAt: null, createdAt: new Date() };
      endpoints.set(row.id, row);
      return Promise.resolve(row);
    },
    listEndpoints: () => Promise.resolve([[...endpoints.values()], endpoints.size]),
    findEndpoint: (appId: number, id: number) => Promise.resolve(endpoints.get(id)?.appId === appId ? endpoints.get(id)! : null),
    deleteEndpoint: (id: number) => Promise.resolve(void endpoints.delete(id)),
    listDeliveries: (endpointId: number, from: Date) => {
      since.push(from);
      const rows = [...deliveries.values()].filter((d) => d.endpointId === endpointId);
      return Promise.resolve([rows, rows.length]);
    },
    findDelivery: (endpointId: number, id: string) => Promise.resolve(deliveries.get(id)?.endpointId === endpointId ? deliveries.get(id)! : null),
    redeliver: (d: DeliveryRow) => Promise.resolve({ ...d, id: 'd-2', status: 'PENDING', attempts: 0, redeliveryOf: d.id }),
  } as unknown as WebhooksRepository;
  const service = new WebhooksService(repo, production, 14, () => void (woken += 1));
  return { service, endpoints, deliveries, since, woken: () => woken };
}

const body = { url: PUBLIC_URL, events: ['track.published' as const] };

describe('APP-18 create a webhook', () => {
  it('answers the signing secret once, with the endpoint', async () => {
    const { service, endpoints } = setup({ ownerId: OWNER, deleted: false, suspended: false });
    const created = await service.create(OWNER, APP, body);
    expect(created).toMatchObject({ url: PUBLIC_URL, status: 'ACTIVE', disabledAt: null, secret: expect.any(String) });
    expect(endpoints.get(created.id)?.secret).toBe(created.secret);
  });

  it("answers RESOURCE_NOT_FOUND for another user's app or a deleted one, and FORBIDDEN for a suspended one", async () => {
    await expect(setup({ ownerId: 2, deleted: false, suspended: false }).service.create(OWNER, APP, body)).rejects.toMatchObject({
      code: 'RESOURCE_NOT_FOUND',
    });
    await expect(setup({ ownerId: OWNER, deleted: true, suspended: false }).service.create(OWNER, APP, body)).rejects.toMatchObject({
      code: 'RESOURCE_NOT_FOUND',
    });
    await expect(setup(null).service.create(OWNER, APP, body)).rejects.toMatchObject({ code: 'RESOURCE_NOT_FOUND' });
    await expect(setup({ ownerId: OWNER, deleted: false, suspended: true }).service.create(OWNER, APP, body)).rejects.toMatchObject({ code: 'FORBIDDEN' });
  });

  it('refuses a URL that is not https or points at a private address (VALIDATION_FAILED, field url)', async () => {
    const { service, endpoints } = setup({ ownerId: OWNER, deleted: false, suspended: false });
    for (const url of ['http://8.8.8.8/hooks', 'https://10.0.0.8/hooks', 'https://127.0.0.1/hooks', 'https://[::1]/hooks']) {
      await expect(service.create(OWNER, APP, { ...body, url })).rejects.toMatchObject({ code: 'VALIDATION_FAILED', errors: [{ field: 'url' }] });
    }
    expect(endpoints.size).toBe(0);
  });

  it(`answers FORBIDDEN past ${MAX_WEBHOOKS_PER_APP} webhooks per app`, async () => {
    const { service } = setup({ ownerId: OWNER, deleted: false, suspended: false });
    for (let i = 0; i < MAX_WEBHOOKS_PER_APP; i += 1) await service.create(OWNER, APP, body);
    await expect(service.create(OWNER, APP, body)).rejects.toMatchObject({ code: 'FORBIDDEN' });
  });
});

describe('APP-20…APP-22 endpoints and deliveries', () => {
  it('answers RESOURCE_NOT_FOUND for a webhook of another app and a delivery of another webhook', async () => {
    const { service, deliveries } = setup({ ownerId: OWNER, deleted: false, suspended: false });
    const a = await service.create(OWNER, APP, body);
    const b = await service.create(OWNER, APP, body);
    deliveries.set('d-1', delivery(a.id));
    await expect(service.delete(OWNER, APP + 1, a.id)).rejects.toMatchObject({ code: 'RESOURCE_NOT_FOUND' });
    await expect(service.redeliver(OWNER, APP, b.id, 'd-1')).rejects.toMatchObject({ code: 'RESOURCE_NOT_FOUND' });
  });

  it('APP-21 lists the deliveries of the log window only', async () => {
    const { service, deliveries, since } = setup({ ownerId: OWNER, deleted: false, suspended: false });
    const a = await service.create(OWNER, APP, body);
    deliveries.set('d-1', delivery(a.id, { status: 'PENDING' }));
    const page = await service.deliveries(OWNER, APP, a.id, 0, 20);
    expect(page.content[0]).toMatchObject({ id: 'd-1', status: 'PENDING', nextAttemptAt: expect.any(String) });
    expect(Date.now() - since[0]!.getTime()).toBeGreaterThanOrEqual(14 * 86_400_000);
    expect(Date.now() - since[0]!.getTime()).toBeLessThan(14 * 86_400_000 + 60_000);
  });

  it('APP-22 queues the same delivery again and wakes the dispatcher; FORBIDDEN once the webhook is disabled', async () => {
    const { service, deliveries, endpoints, woken } = setup({ ownerId: OWNER, deleted: false, suspended: false });
    const a = await service.create(OWNER, APP, body);
    deliveries.set('d-1', delivery(a.id));
    await expect(service.redeliver(OWNER, APP, a.id, 'd-1')).resolves.toMatchObject({
      id: 'd-2',
      status: 'PENDING',
      redeliveryOf: 'd-1',
      nextAttemptAt: expect.any(String),
    });
    expect(woken()).toBe(1);
    endpoints.set(a.id, { ...endpoints.get(a.id)!, status: 'DISABLED', disabledAt: new Date() });
    await expect(service.redeliver(OWNER, APP, a.id, 'd-1')).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await expect(service.list(OWNER, APP, 0, 20)).resolves.toMatchObject({ content: [{ status: 'DISABLED', disabledAt: expect.any(String) }] });
  });
});
