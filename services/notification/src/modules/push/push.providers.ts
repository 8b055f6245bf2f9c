import webpush from 'web-push';

/** What happened to one push: delivered, or the token is dead (404/410) and must be dropped. */
export type PushOutcome = 'delivered' | 'gone' | 'failed';

export interface PushLogger {
  warn(obj: object, msg: string): void;
}

/**
 * The one small interface provider tokens are pushed through (R15 "the push provider"): every
 * DESKTOP, MOBILE and TABLET token, and WEB tokens that are not a PushSubscription (FCM
 * registration tokens of web clients).
 */
export interface MobilePushProvider {
  send(token: string, deviceType: string, payload: string): Promise<PushOutcome>;
}

const outcomeOf = (status: number): PushOutcome => (status === 404 || status === 410 ? 'gone' : status >= 200 && status < 300 ? 'delivered' : 'failed');

/**
 * HTTP implementation: `POST {baseUrl}/send` with `{ token, deviceType, payload }`; the provider
 * answers 404/410 for tokens it no longer knows.
 */
export class HttpMobilePushProvider implements MobilePushProvider {
  constructor(
    private readonly baseUrl: string,
    private readonly timeoutMs: number,
    private readonly logger: PushLogger,
  ) {}

  async send(token: string, deviceType: string, payload: string): Promise<PushOutcome> {
    try {
      const res = await fetch(`${this.baseUrl.replace(/\/+$/, '')}/send`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ token, deviceType, payload: JSON.parse(payload) as unknown }),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      return outcomeOf(res.status);
    } catch (err) {
      this.logger.warn({ err: (err as Error).message }, 'push provider unreachable');
      return 'failed';
    }
  }
}

export interface VapidKeys {
  subject: string;
  publicKey: string;
  privateKey: string;
}

export interface WebPushSubscription {
  endpoint: string;
  keys: { p256dh: string; auth: string };
}

/**
 * WEB tokens that are browser PushSubscriptions (transport WEB_PUSH). The `web-push` library
 * encrypts the payload (RFC 8291, aes128gcm) and signs the VAPID header; its request details are
 * sent with fetch, which (unlike the library's own https-only sender) also reaches a plain-HTTP
 * endpoint such as a local stand-in.
 */
export class WebPushSender {
  constructor(
    private readonly vapid: VapidKeys,
    private readonly timeoutMs: number,
    private readonly logger: PushLogger,
  ) {}

  async send(subscription: WebPushSubscription, payload: string): Promise<PushOutcome> {
    let details: ReturnType<typeof webpush.generateRequestDetails>;
    try {
      details = webpush.generateRequestDetails(subscription, payload, {
        vapidDetails: this.vapid,
        TTL: 24 * 60 * 60,
        contentEncoding: 'aes128gcm',
      });
    } catch (err) {
      // A subscription the library cannot use (bad keys) will never work.
      this.logger.warn({ err: (err as Error).message }, 'web push subscription unusable');
      return 'gone';
    }
    try {
      const res = await fetch(details.endpoint, {
        method: details.method,
        headers: details.headers as Record<string, string>,
        body: details.body ?? undefined,
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      return outcomeOf(res.status);
    } catch (err) {
      this.logger.warn({ err: (err as Error).message }, 'web push endpoint unreachable');
      return 'failed';
    }
  }
}

/**
 * Where a WEB token may make this service send requests. The endpoint comes from the client, so
 * by default only public https hosts are accepted (no SSRF into the cluster); tests and local
 * development allow plain http and private addresses (WEB_PUSH_ALLOW_PRIVATE_ENDPOINTS). A host
 * name that resolves to a private address is not caught here: egress rules must cover that.
 */
export interface EndpointPolicy {
  allowPrivate: boolean;
}

const PRIVATE_HOST = [
  /^localhost$/i,
  /\.localhost$/i,
  /\.(local|internal|cluster\.local|svc)$/i,
  /^127\./,
  /^10\./,
  /^192\.168\./,
  /^172\.(1[6-9]|2\d|3[01])\./,
  /^169\.254\./,
  /^0\./,
  /^\[?(::1?|f[cd][0-9a-f]{2}:.*|fe80:.*)\]?$/i,
];

function endpointAllowed(url: URL, policy: EndpointPolicy): boolean {
  if (policy.allowPrivate) return url.protocol === 'https:' || url.protocol === 'http:';
  if (url.protocol !== 'https:') return false;
  // A bare name without a dot is a cluster-internal service name.
  if (!url.hostname.includes('.') && !url.hostname.includes(':')) return false;
  return !PRIVATE_HOST.some((re) => re.test(url.hostname));
}

/** Parses a WEB token; null when it is not a PushSubscription's JSON or its endpoint is not allowed. */
export function parseWebSubscription(token: string, policy: EndpointPolicy): WebPushSubscription | null {
  let value: unknown;
  try {
    value = JSON.parse(token);
  } catch {
    return null;
  }
  const v = value as { endpoint?: unknown; keys?: { p256dh?: unknown; auth?: unknown } } | null;
  if (!v || typeof v.endpoint !== 'string' || typeof v.keys?.p256dh !== 'string' || typeof v.keys?.auth !== 'string') return null;
  let url: URL;
  try {
    url = new URL(v.endpoint);
  } catch {
    return null;
  }
  if (!endpointAllowed(url, policy)) return null;
  const b64url = /^[A-Za-z0-9_-]+={0,2}$/;
  if (!b64url.test(v.keys.p256dh) || !b64url.test(v.keys.auth)) return null;
  return { endpoint: v.endpoint, keys: { p256dh: v.keys.p256dh, auth: v.keys.auth } };
}

/** How a registered token is pushed: Web Push (VAPID) to a PushSubscription, or the push provider. */
export type PushTransport = 'WEB_PUSH' | 'PROVIDER';

/**
 * A registration token for the push provider given with deviceType WEB (an FCM registration token
 * from a web client: `<instance id>:<base64url>`, about 160 characters). Letters, digits and
 * `- _ : . + / =` only: no whitespace, control characters, quotes or braces.
 */
const PROVIDER_TOKEN = /^[A-Za-z0-9_:.+/=-]{1,4096}$/;

export type TokenCheck = { ok: true; transport: PushTransport } | { ok: false; message: string };

/**
 * NOT-7: which transport a token uses, or why it is refused. Only WEB tokens are examined (DESKTOP,
 * MOBILE and TABLET tokens go to the provider as given). A WEB token that looks like JSON (starts
 * with `{`) must be a usable PushSubscription: it is never passed on to the provider.
 */
export function classifyDeviceToken(token: string, deviceType: string, policy: EndpointPolicy): TokenCheck {
  if (deviceType !== 'WEB') return { ok: true, transport: 'PROVIDER' };
  if (token.trimStart().startsWith('{')) {
    return parseWebSubscription(token, policy)
      ? { ok: true, transport: 'WEB_PUSH' }
      : {
          ok: false,
          message: policy.allowPrivate
            ? 'A PushSubscription needs an http(s) endpoint, keys.p256dh and keys.auth (base64url).'
            : 'A PushSubscription needs an https endpoint on a public host, keys.p256dh and keys.auth (base64url).',
        };
  }
  return PROVIDER_TOKEN.test(token)
    ? { ok: true, transport: 'PROVIDER' }
    : {
        ok: false,
        message: 'A WEB token is either the JSON of a PushSubscription or a push provider registration token (letters, digits and - _ : . + / = only).',
      };
}

/** Development default: a fresh VAPID pair per boot (production must configure one). */
export function generateVapidKeys(): { publicKey: string; privateKey: string } {
  return webpush.generateVAPIDKeys();
}
