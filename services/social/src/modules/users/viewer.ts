import type { Caller } from '@msp/http';

/**
 * Who is reading, as the SQL of the lists needs it: `id` 0 stands for an anonymous caller (no
 * user has id 0, so every caller-relative join then finds nothing).
 */
export interface Viewer {
  id: number;
  isAdmin: boolean;
}

export function viewerOf(caller: Caller | null): Viewer {
  return { id: caller?.userId ?? 0, isAdmin: caller?.role === 'ADMIN' };
}
