/** Fixed path segments of the API and web app that can never be usernames (R1). */
export const RESERVED_USERNAMES = new Set([
  'me',
  'username',
  'suggested',
  'tracks',
  'playlists',
  'repost',
  'reposts',
  'followers',
  'following',
  'follow',
  'block',
  'blocked',
  'admin',
  'settings',
  'sets',
  'embed',
  'api',
  'auth',
  'login',
  'logout',
  'register',
  'signup',
  'oauth',
  'oauth2',
  'search',
  'explore',
  'stations',
  'feed',
  'messages',
  'notifications',
  'subscription',
  'checkout',
  'upload',
  'you',
  'library',
  'history',
  'liked-tracks',
  'liked-playlists',
  'reposted-tracks',
  'device-tokens',
  'genres',
  'resolve',
  'verify-email',
  'change-password',
  'help',
  'about',
  'terms',
  'privacy',
  'support',
  'pro',
  'webhook',
  'ws',
]);

export const USERNAME_PATTERN = /^(?=.*[a-z])[a-z0-9._-]{3,30}$/;

export function usernameProblem(username: string): string | null {
  if (!USERNAME_PATTERN.test(username)) {
    return 'Must be 3–30 characters of a-z, 0-9, ".", "_" or "-" with at least one letter.';
  }
  if (RESERVED_USERNAMES.has(username)) return 'This name is reserved.';
  return null;
}

/** R1: lower-case, other characters become "-", "user-" prefix without a letter. */
export function usernameBase(displayName: string): string {
  let base = displayName
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/-{2,}/g, '-')
    .replace(/^[-.]+|[-.]+$/g, '');
  if (!/[a-z]/.test(base)) base = `user-${base}`.replace(/-$/, '');
  base = base.slice(0, 24);
  if (base.length < 3) base = `${base}-user`.replace(/^-/, '');
  if (RESERVED_USERNAMES.has(base)) base = `${base}-1`;
  return base;
}
