import { STATUS_CODES } from 'node:http';

export function reasonPhrase(status: number): string {
  return STATUS_CODES[status] ?? 'Error';
}
