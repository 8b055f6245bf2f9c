import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

/**
 * SSRF guard of webhook URLs. A URL is checked after DNS resolution: every address its host
 * resolves to must be allowed, and the request then goes to the address that was checked (pinned),
 * so a DNS answer that changes between the check and the connection cannot redirect it.
 *
 * - production: public addresses only (no private, loopback, link-local, CGNAT, multicast,
 *   unspecified or reserved ranges, IPv4 or IPv6, IPv4-mapped IPv6 included); `https:` on 443 only.
 * - development and test: the same, except that 127.0.0.1 is allowed (a local receiver), over
 *   `http:` or `https:`.
 */
export interface WebhookUrlPolicy {
  production: boolean;
}

const blocked = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  blocked.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96],
  ['100::', 64],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const) {
  blocked.addSubnet(net, prefix, 'ipv6');
}

/** `::ffff:a.b.c.d` (and its hex form) is the IPv4 address a.b.c.d. */
function unmapped(address: string): { address: string; family: 4 | 6 } {
  const lower = address.toLowerCase();
  const dotted = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (dotted) return { address: dotted[1]!, family: 4 };
  const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (hex) {
    const hi = parseInt(hex[1]!, 16);
    const lo = parseInt(hex[2]!, 16);
    return { address: `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`, family: 4 };
  }
  return { address, family: isIP(address) === 4 ? 4 : 6 };
}

/** Whether a resolved address may receive webhooks under the policy. */
export function addressAllowed(address: string, policy: WebhookUrlPolicy): boolean {
  const { address: a, family } = unmapped(address);
  if (!isIP(a)) return false;
  if (!policy.production && a === '127.0.0.1') return true;
  return !blocked.check(a, family === 4 ? 'ipv4' : 'ipv6');
}

/** The syntactic checks of a webhook URL (before DNS): null when fine, else why not. */
export function urlProblem(raw: string, policy: WebhookUrlPolicy): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'url must be an absolute URL';
  }
  if (policy.production ? url.protocol !== 'https:' : url.protocol !== 'https:' && url.protocol !== 'http:') {
    return policy.production ? 'url must use https' : 'url must use http or https';
  }
  // The cluster's egress policy opens the internet on 443 only (k8s/network-policies.yaml).
  if (policy.production && url.port !== '' && url.port !== '443') return 'url must use the https port 443';
  if (url.username || url.password) return 'url must not carry credentials';
  if (url.hash) return 'url must not have a fragment';
  return null;
}

export interface ResolvedTarget {
  url: URL;
  address: string;
  family: 4 | 6;
}

export class WebhookTargetError extends Error {}

/**
 * Resolves the URL's host and checks every address; answers the one to connect to. Throws
 * `WebhookTargetError` when the URL or any address is refused, or the name does not resolve.
 */
export async function resolveTarget(raw: string, policy: WebhookUrlPolicy, resolve = lookup): Promise<ResolvedTarget> {
  const problem = urlProblem(raw, policy);
  if (problem) throw new WebhookTargetError(problem);
  const url = new URL(raw);
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  let addresses: { address: string; family: number }[];
  if (isIP(host)) {
    addresses = [{ address: host, family: isIP(host) }];
  } else {
    try {
      addresses = await resolve(host, { all: true, verbatim: true });
    } catch {
      throw new WebhookTargetError(`url host ${host} does not resolve`);
    }
  }
  if (addresses.length === 0) throw new WebhookTargetError(`url host ${host} does not resolve`);
  const refused = addresses.find((a) => !addressAllowed(a.address, policy));
  if (refused) {
    throw new WebhookTargetError(
      policy.production
        ? 'url resolves to a private, loopback or link-local address'
        : 'url resolves to a private, loopback or link-local address (only 127.0.0.1 is allowed in development)',
    );
  }
  const first = addresses[0]!;
  return { url, address: first.address, family: first.family === 6 ? 6 : 4 };
}
