export const SERVICE_NAMES = ['identity', 'catalog', 'media-processing', 'social', 'messaging', 'notification', 'billing'] as const;
export type ServiceName = (typeof SERVICE_NAMES)[number];
