/**
 * The OpenAPI tag of each operation, by its id's prefix: routes registered from the contract
 * (`operation(id)` in @msp/http) take their tag from here, so one group is named once.
 */
export const ROUTE_TAGS: Readonly<Record<string, string>> = {
  ACC: 'Account control',
  APP: 'Apps',
  AUTH: 'Authentication',
  BLK: 'Block',
  DSC: 'Discovery',
  EMBED: 'Tracks',
  ENG: 'Engagement',
  FOL: 'Followers',
  INS: 'Insights',
  MEDIA: 'Media',
  MFA: 'Account Security',
  MOD: 'Moderation',
  MSG: 'Conversations',
  NOT: 'Notifications',
  PLS: 'Playlists',
  SEC: 'Account Security',
  SND: 'Tracks',
  SUB: 'Subscriptions',
  TRK: 'Tracks',
  USR: 'Users',
  WS: 'Realtime',
};

/** The tag of an operation id (`TRK-12` → `Tracks`); the prefix itself when it has none. */
export function routeTag(id: string): string {
  const prefix = id.replace(/-\d+$/, '');
  return ROUTE_TAGS[prefix] ?? prefix;
}
