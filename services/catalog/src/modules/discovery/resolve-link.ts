/**
 * DSC-4: the R1 web link forms, as absolute URLs on `{webBaseUrl}` or as bare paths:
 * profile `/{username}`, track `/{username}/{trackSlug}`, playlist `/{username}/sets/{playlistSlug}`,
 * each optionally with `?token=<secret token>` (R5). Anything else is not a link of ours (null → 400).
 */
export type ParsedLink =
  | { type: 'USER'; username: string }
  | { type: 'TRACK'; username: string; slug: string; token: string | null }
  | { type: 'PLAYLIST'; username: string; slug: string; token: string | null };

const SEGMENT = /^[A-Za-z0-9._~-]{1,200}$/;
const USERNAME = /^[a-z0-9._-]{1,30}$/;

export function parseLink(input: string, webBaseUrl: string): ParsedLink | null {
  const base = new URL(webBaseUrl.replace(/\/+$/, '') + '/');
  const text = input.trim();
  if (!text) return null;
  let url: URL;
  try {
    if (/^[a-z][a-z0-9+.-]*:/i.test(text) || text.startsWith('//')) {
      url = new URL(text);
      if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
      if (url.host.toLowerCase() !== base.host.toLowerCase()) return null;
    } else {
      url = new URL(text.startsWith('/') ? text : `/${text}`, 'http://bare.invalid');
    }
  } catch {
    return null;
  }
  // A web base URL with a path (e.g. https://host/app) prefixes every absolute link.
  let path = url.pathname;
  const prefix = base.pathname.replace(/\/+$/, '');
  if (url.host !== 'bare.invalid' && prefix) {
    if (!path.startsWith(`${prefix}/`)) return null;
    path = path.slice(prefix.length);
  }
  let segments: string[];
  try {
    segments = path
      .split('/')
      .filter((s) => s.length > 0)
      .map((s) => decodeURIComponent(s));
  } catch {
    return null;
  }
  if (segments.length === 0 || !segments.every((s) => SEGMENT.test(s))) return null;
  const username = segments[0]!.toLowerCase();
  if (!USERNAME.test(username)) return null;
  const token = url.searchParams.get('token') || null;
  if (token !== null && !/^[A-Za-z0-9_-]{8,100}$/.test(token)) return null;
  if (segments.length === 1) return token ? null : { type: 'USER', username };
  if (segments.length === 2 && segments[1] !== 'sets') return { type: 'TRACK', username, slug: segments[1]!, token };
  if (segments.length === 3 && segments[1] === 'sets') return { type: 'PLAYLIST', username, slug: segments[2]!, token };
  return null;
}
