import argon2 from 'argon2';

/**
 * A deny list of the most common passwords (R13). Short on purpose: the length rule already
 * removes most of the usual lists; these are the 8+ character ones that top every breach list.
 */
const COMMON = new Set([
  'password',
  'password1',
  'password123',
  '12345678',
  '123456789',
  '1234567890',
  'qwertyuiop',
  'qwerty123',
  '11111111',
  '00000000',
  'iloveyou',
  'sunshine',
  'princess',
  'football',
  'baseball',
  'welcome1',
  'abc12345',
  'admin123',
  'letmein1',
  'passw0rd',
  'p@ssw0rd',
  'trustno1',
  'starwars',
  'superman',
  'whatever',
  'dragon12',
  'monkey12',
  'master12',
  'qwertyui',
  'asdfghjk',
  'zxcvbnm1',
  '1q2w3e4r',
  '1qaz2wsx',
  'q1w2e3r4',
  'changeme',
  'computer',
  'internet',
  'michelle',
  'jennifer',
  'corvette',
  'mercedes',
  'mustang1',
  'shadow12',
  'charlie1',
  'liverpool',
  'chelsea1',
  'spotify1',
  'soundcloud',
  'music123',
  'musiclover',
  '123123123',
  '987654321',
  '12341234',
  'aaaaaaaa',
  'abcdefgh',
  'abcd1234',
  'password12',
  'password1234',
  'password!',
  'password01',
  'passwort',
  'motdepasse',
  'contraseña',
  'senha123',
  '123456789a',
  'a123456789',
  '1234567890a',
  'qwerty1234',
  'qwerty12345',
  'qwertyuiop1',
  'asdfghjkl',
  'asdf1234',
  'zxcvbnm123',
  '1qaz2wsx3edc',
  'qazwsxedc',
  'zaq12wsx',
  '!qaz2wsx',
  'q1w2e3r4t5',
  'q1w2e3r4t5y6',
  '1q2w3e4r5t',
  '11223344',
  '12344321',
  '123321123',
  '147258369',
  '159753456',
  '159357852',
  '741852963',
  '789456123',
  '88888888',
  '99999999',
  '22222222',
  '55555555',
  '66666666',
  '77777777',
  '12121212',
  '13131313',
  'iloveyou1',
  'iloveyou2',
  'iloveyou!',
  'ilovemusic',
  'loveyou1',
  'lovelove',
  'babygirl1',
  'princess1',
  'sunshine1',
  'football1',
  'baseball1',
  'basketball',
  'superman1',
  'batman123',
  'pokemon1',
  'minecraft',
  'fortnite1',
  'starwars1',
  'hello123',
  'hello1234',
  'welcome123',
  'welcome12',
  'letmein123',
  'trustno1!',
  'administrator',
  'admin1234',
  'root1234',
  'changeme1',
  'default1',
  'guest1234',
  'test1234',
  'testtest',
  'secret123',
  'mypassword',
  'yourpassword',
  'nopassword',
  'access14',
  'whatever1',
  'freedom1',
  'michael1',
  'jordan23',
  'liverpool1',
  'arsenal1',
  'manchester',
  'barcelona',
  'chocolate',
  'butterfly',
  'elizabeth',
  'christina',
  'jessica1',
  'ashley123',
  'qwerty123456',
  '1234qwer',
  'qwer1234',
  'asdfasdf',
  'zxcvzxcv',
  'spotify123',
  'soundcloud1',
  'playlist1',
  'rockstar1',
  'guitar123',
  'drummer1',
  'hiphop123',
  'letmein!',
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

/**
 * argon2id, m = 19 MiB, t = 2, p = 1: OWASP's first recommended argon2id setting (the RFC 9106
 * low-memory profile class). About 30 ms per hash on one core of the 2-core build machine, so one
 * replica verifies roughly 60 logins/s while an offline guesser pays 19 MiB and two passes per try.
 * See services/identity/README.md. Hashes made with other parameters still verify (they carry
 * their parameters) and are upgraded at the next successful login (`needsRehash`).
 */
export const ARGON2_OPTIONS = { type: argon2.argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export function hashPassword(password: string): Promise<string> {
  return argon2.hash(password, ARGON2_OPTIONS);
}

export async function verifyPassword(hash: string, password: string): Promise<boolean> {
  try {
    return await argon2.verify(hash, password);
  } catch {
    return false;
  }
}

export function needsRehash(hash: string): boolean {
  try {
    return argon2.needsRehash(hash, ARGON2_OPTIONS);
  } catch {
    return false;
  }
}

let dummy: Promise<string> | null = null;
/**
 * A hash of a random secret with the same parameters: unknown e-mails (and accounts without a
 * password) are verified against it so that every login answer costs one argon2 verification.
 */
export function dummyHash(): Promise<string> {
  dummy ??= hashPassword(`dummy-${Math.random()}-${Date.now()}`);
  return dummy;
}
