import { toPage, type CreateWebhookBody, type Page, type WebhookDeliveryView, type WebhookView } from '@msp/contracts';
import { AppError } from '@msp/errors';
import type { WebhooksRepository, DeliveryRow, EndpointRow } from './webhooks.repository.js';
import { resolveTarget, WebhookTargetError, type WebhookUrlPolicy } from './webhooks.policy.js';
import { newWebhookSecret } from './webhooks.signature.js';
import type { WebhookEventType } from './webhooks.events.js';

/** How many webhooks one app may have (APP-18 answers FORBIDDEN past it). */
export const MAX_WEBHOOKS_PER_APP = 10;

function view(e: EndpointRow): WebhookView {
  return {
    id: e.id,
    url: e.url,
    events: e.events as WebhookEventType[],
    status: e.status === 'DISABLED' ? 'DISABLED' : 'ACTIVE',
    createdAt: e.createdAt.toISOString(),
    disabledAt: e.disabledAt?.toISOString() ?? null,
  };
}

function deliveryView(d: DeliveryRow): WebhookDeliveryView {
  return {
    id: d.id,
    eventId: d.eventId,
    type: d.eventType as WebhookEventType,
    status: d.status as WebhookDeliveryView['status'],
    attempts: d.attempts,
    responseCode: d.responseCode,
    latencyMs: d.latencyMs,
    lastError: d.lastError,
    createdAt: d.createdAt.toISOString(),
    deliveredAt: d.deliveredAt?.toISOString() ?? null,
    nextAttemptAt: d.status === 'PENDING' ? d.nextAttemptAt.toISOString() : null,
    redeliveryOf: d.redeliveryOf,
  };
}

/** APP-18…22: an app's webhook endpoints and their delivery log, for the app's owner only. */
export class WebhooksService {
  constructor(
    private readonly repo: WebhooksRepository,
    private readonly policy: WebhookUrlPolicy,
    private readonly logDays: number,
    private readonly wake: () => void,
  ) {}

  /** The caller's own live app (from identity's events); anyone else's is as absent as a missing one. */
  private async ownedApp(userId: number, appId: number) {
    const app = await this.repo.findApp(appId);
    if (!app || app.deleted || app.ownerId !== userId) throw new AppError('RESOURCE_NOT_FOUND', 'No such app.');
    return app;
  }

  private async ownedEndpoint(userId: number, appId: number, webhookId: number): Promise<EndpointRow> {
    await this.ownedApp(userId, appId);
    const endpoint = await this.repo.findEndpoint(appId, webhookId);
    if (!endpoint) throw new AppError('RESOURCE_NOT_FOUND', 'No such webhook.');
    return endpoint;
  }

  async create(userId: number, appId: number, body: CreateWebhookBody): Promise<WebhookView & { secret: string }> {
    const app = await this.ownedApp(userId, appId);
    if (app.suspended) throw new AppError('FORBIDDEN', 'The app is suspended.');
    try {
      await resolveTarget(body.url, this.policy);
    } catch (err) {
      if (err instanceof WebhookTargetError) throw AppError.validation([{ field: 'url', message: err.message }], err.message);
      throw err;
    }
    const secret = newWebhookSecret();
    const created = await this.repo.createEndpoint({ appId, ownerId: userId, url: body.url, events: body.events, secret }, MAX_WEBHOOKS_PER_APP);
    if (!created) throw new AppError('FORBIDDEN', `An app can have at most ${MAX_WEBHOOKS_PER_APP} webhooks.`);
    return { ...view(created), secret };
  }

  async list(userId: number, appId: number, page: number, size: number): Promise<Page<WebhookView>> {
    await this.ownedApp(userId, appId);
    const [rows, total] = await this.repo.listEndpoints(appId, page, size);
    return toPage(rows.map(view), total, page, size);
  }

  async delete(userId: number, appId: number, webhookId: number): Promise<void> {
    const endpoint = await this.ownedEndpoint(userId, appId, webhookId);
    await this.repo.deleteEndpoint(endpoint.id);
  }

  /** APP-21: the last `logDays` days, newest first. */
  async deliveries(userId: number, appId: number, webhookId: number, page: number, size: number): Promise<Page<WebhookDeliveryView>> {
    const endpoint = await this.ownedEndpoint(userId, appId, webhookId);
    const [rows, total] = await this.repo.listDeliveries(endpoint.id, new Date(Date.now() - this.logDays * 86_400_000), page, size);
    return toPage(rows.map(deliveryView), total, page, size);
  }

  /** APP-22: sends the same body again (same `id`), after the resource's pending deliveries. */
  async redeliver(userId: number, appId: number, webhookId: number, deliveryId: string): Promise<WebhookDeliveryView> {
    const endpoint = await this.ownedEndpoint(userId, appId, webhookId);
    if (endpoint.status !== 'ACTIVE') throw new AppError('FORBIDDEN', 'The webhook is disabled; create it again to receive deliveries.');
    const delivery = await this.repo.findDelivery(endpoint.id, deliveryId);
    if (!delivery) throw new AppError('RESOURCE_NOT_FOUND', 'No such delivery.');
    const created = await this.repo.redeliver(delivery);
    this.wake();
    return deliveryView(created);
  }
}
