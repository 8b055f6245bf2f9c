import { createHash, randomBytes } from 'node:crypto';

/** 256 random bits, URL-safe: refresh tokens, one-time tokens, OAuth state. */
export function randomSecret(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

/**
 * Stored form of a high-entropy token. A fast hash is enough here (unlike passwords): the input
 * has 256 bits of entropy, so a stolen table cannot be reversed by guessing.
 */
export function hashSecret(token: string): string {
  return createHash('sha256').update(token).digest('base64url');
}

/** Hash of an e-mail address for Redis keys, so no address is stored in clear outside the database. */
export function emailKey(email: string): string {
  return createHash('sha256').update(email.trim().toLowerCase()).digest('base64url').slice(0, 32);
}
