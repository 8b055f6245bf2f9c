import { readFileSync } from 'node:fs';
import path from 'node:path';

/** The node options the image starts every workload with (the Dockerfile's `ENV NODE_OPTIONS`, e.g. the heap cap). */
export function imageNodeOptions(root: string): string[] {
  const line = /^ENV NODE_OPTIONS=(.+)$/m.exec(readFileSync(path.join(root, 'Dockerfile'), 'utf8'));
  return (line?.[1] ?? '').split(' ').filter(Boolean);
}
