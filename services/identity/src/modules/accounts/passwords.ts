import argon2 from 'argon2';

/**
 * A deny list of the most common passwords (R13). Short on purpose: the length rule already
 * removes most of the usual lists; these are the 8+ character ones that top every breach list.
 */
const COMMON = new Set([
  'password', 'password1', 'password123', '12345678', '123456789', '1234567890', 'qwertyuiop', 'qwerty123',
  '11111111', '00000000', 'iloveyou', 'sunshine', 'princess', 'football', 'baseball', 'welcome1',
  'abc12345', 'admin123', 'letmein1', 'passw0rd', 'p@ssw0rd', 'trustno1', 'starwars', 'superman',
  'whatever', 'dragon12', 'monkey12', 'master12', 'qwertyui', 'asdfghjk', 'zxcvbnm1', '1q2w3e4r',
  '1qaz2wsx', 'q1w2e3r4', 'changeme', 'computer', 'internet', 'michelle', 'jennifer', 'corvette',
  'mercedes', 'mustang1', 'shadow12', 'charlie1', 'liverpool', 'chelsea1', 'spotify1', 'soundcloud',
  'music123', 'musiclover', '123123123', '987654321', '12341234', 'aaaaaaaa', 'abcdefgh', 'abcd1234',
]);

export function passwordProblem(password: string, email: string, username: string | null): string | null {
  const length = [...password].length;
  if (length < 8 || length > 128) return 'Password must be 8–128 characters.';
  const lower = password.toLowerCase();
  if (COMMON.has(lower)) return 'This password is too common.';
  if (lower === email.toLowerCase() || (username && lower === username.toLowerCase())) {
    return 'Password must differ from your e-mail and username.';
  }
  return null;
}

/** argon2id with the library's defaults (64 MiB, t=3): the OWASP-recommended class of settings. */
export function hashPassword(password: string): Promise<string> {
  return argon2.hash(password, { type: argon2.argon2id });
}

export function verifyPassword(hash: string, password: string): Promise<boolean> {
  return argon2.verify(hash, password);
}
