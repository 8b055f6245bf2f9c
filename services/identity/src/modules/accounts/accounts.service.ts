import { AppError, isUniqueViolation } from '@msp/errors';
import { UserRegistered, writeOutbox } from '@msp/events';
import type { Redis } from 'ioredis';
import type { IdentityConfig } from '../../config.js';
import type { Links } from '../../links.js';
import { mailTemplates } from '../mail/mail.templates.js';
import { enqueueMail } from '../mail/mail-outbox.repository.js';
import type { MailRequestOutcome, MailRequests } from '../mail/mail-requests.js';
import { emailKey } from '../sessions/secrets.js';
import { accountsRepository as repo, type AccountsStore, type Tx } from './accounts.repository.js';
import { snapshotOf } from './accounts.events.js';
import type { AccountCheckUserBody, AccountRegisterBody } from '@msp/contracts';
import { oneTimeTokens } from './one-time-tokens.repository.js';
import { hashPassword, passwordProblem } from './passwords.js';
import { usernameBase, usernameProblem } from './username.js';

const MIN_AGE_YEARS = 13;
export const RESEND_COOLDOWN_SECONDS = 60;
/** Tries to insert a derived username before giving up (each retry derives again). */
const USERNAME_ATTEMPTS = 10;
/**
 * Registrations of one base queue on its advisory lock while holding a pooled connection, so a
 * burst may wait longer than Prisma's default 2 s for a connection.
 */
const DERIVATION_TX = { maxWait: 10_000, timeout: 15_000 };

function ageInYears(dateOfBirth: string, now = new Date()): number {
  const [y, m, d] = dateOfBirth.split('-').map(Number) as [number, number, number];
  let age = now.getUTCFullYear() - y;
  if (now.getUTCMonth() + 1 < m || (now.getUTCMonth() + 1 === m && now.getUTCDate() < d)) age -= 1;
  return age;
}

export interface NewAccount {
  email: string;
  displayName: string;
  username?: string | null;
  passwordHash: string | null;
  emailVerified: boolean;
  googleSub?: string | null;
  dateOfBirth?: string | null;
  gender?: string | null;
  city?: string | null;
  country?: string | null;
}

export class AccountsService {
  constructor(
    private readonly accounts: AccountsStore,
    private readonly config: IdentityConfig,
    private readonly links: Links,
    private readonly redis: Pick<Redis, 'set' | 'ttl'>,
    private readonly onMailQueued: () => void,
    private readonly mailRequests: Pick<MailRequests, 'enqueue'>,
  ) {}

  checkCaptcha(token: string | null | undefined): void {
    if (this.config.CAPTCHA_ENABLED && (!token || token !== this.config.CAPTCHA_BYPASS_TOKEN)) {
      throw new AppError('CAPTCHA_FAILED', 'Captcha verification failed.');
    }
  }

  /** AUTH-5. The account, its verification mail and its UserRegistered event commit together. */
  async register(body: AccountRegisterBody, correlationId: string) {
    this.checkCaptcha(body.captchaToken);
    if (ageInYears(body.dateOfBirth) < MIN_AGE_YEARS) {
      throw AppError.validation([{ field: 'dateOfBirth', message: `You must be at least ${MIN_AGE_YEARS} years old.` }]);
    }
    if (body.username) {
      const problem = usernameProblem(body.username);
      if (problem) throw AppError.validation([{ field: 'username', message: problem }]);
    }
    const weak = passwordProblem(body.password, body.email, body.username ?? null);
    if (weak) throw new AppError('WEAK_PASSWORD', weak, { errors: [{ field: 'password', message: weak }] });
    const user = await this.createAccount({ ...body, passwordHash: await hashPassword(body.password), emailVerified: false }, correlationId);
    return {
      message: 'Registration successful. Check your e-mail to verify your account.',
      userId: user.id,
      username: user.username,
    };
  }

  /**
   * Creates an account (local or identity-provider) with its UserRegistered event; local accounts
   * also get their verification mail in the same transaction.
   */
  async createAccount(input: NewAccount, correlationId: string) {
    if (await this.accounts.emailExists(input.email)) throw new AppError('EMAIL_TAKEN', 'This e-mail address is already in use.');
    if (input.username && (await this.accounts.usernameExists(input.username))) {
      throw new AppError('USERNAME_TAKEN', 'This username is already taken.');
    }
    for (let attempt = 0; attempt < USERNAME_ATTEMPTS; attempt += 1) {
      try {
        const user = await this.accounts.transaction(async (tx) => {
          const username = input.username ?? (await this.freeUsername(tx, input.displayName));
          const created = await repo.create(
            tx,
            {
              email: input.email,
              username,
              displayName: input.displayName,
              passwordHash: input.passwordHash,
              googleSub: input.googleSub ?? null,
              dateOfBirth: input.dateOfBirth ? new Date(`${input.dateOfBirth}T00:00:00.000Z`) : null,
              gender: input.gender ?? null,
              city: input.city ?? null,
              country: input.country ?? null,
            },
            input.emailVerified,
          );
          await writeOutbox(tx, UserRegistered, { ...snapshotOf(created, this.links), createdAt: created.createdAt.toISOString() }, { correlationId });
          if (!input.emailVerified) {
            const token = await oneTimeTokens.issue(tx, created.id, 'VERIFY_EMAIL', created.email);
            await enqueueMail(tx, created.email, mailTemplates.verifyEmail(created.displayName, this.links.webLink('verify-email', token)));
          }
          return created;
        }, DERIVATION_TX);
        // No resend cooldown starts here: AUTH-7 would then answer differently for a fresh account.
        if (!input.emailVerified) this.onMailQueued();
        return user;
      } catch (err) {
        if (isUniqueViolation(err, 'email')) throw new AppError('EMAIL_TAKEN', 'This e-mail address is already in use.');
        if (isUniqueViolation(err, 'google_sub')) throw new AppError('EMAIL_TAKEN', 'This account already exists.');
        if (isUniqueViolation(err, 'username')) {
          if (input.username) throw new AppError('USERNAME_TAKEN', 'This username is already taken.');
          // Derived names are serialised per base (freeUsername), so this is a name chosen through
          // USR-7 or AUTH-5 (or a neighbouring base's suffix) committed meanwhile: derive again,
          // the next derivation sees it.
          continue;
        }
        throw err;
      }
    }
    throw new AppError('USERNAME_TAKEN', 'Could not find a free username; choose one.');
  }

  /** AUTH-6. */
  async verifyEmail(token: string) {
    const result = await this.accounts.transaction(async (tx) => {
      const row = await oneTimeTokens.consume(tx, token, ['VERIFY_EMAIL']);
      if (!row) return 'invalid' as const;
      const address = await repo.addressOf(tx, row.email);
      if (!address || address.userId !== row.userId) return 'invalid' as const;
      if (address.isVerified) return 'already' as const;
      if (!row.live) return 'invalid' as const;
      await repo.markAddressVerified(tx, row.userId, row.email);
      return 'verified' as const;
    });
    if (result === 'invalid') throw new AppError('INVALID_TOKEN', 'This verification link is invalid or has expired.');
    if (result === 'already') throw new AppError('ALREADY_VERIFIED', 'This e-mail address is already verified.');
    return { message: 'Your e-mail address is verified. You can log in now.' };
  }

  /**
   * AUTH-7. The same answer, cooldown, work and time whether or not an unverified account has the
   * address, so it cannot be used to find accounts: after the cooldown, one queued request (see
   * `sendVerification`).
   */
  async resendVerification(email: string) {
    const cooldownKey = `auth:resend:${emailKey(email)}`;
    const fresh = await this.redis.set(cooldownKey, '1', 'EX', RESEND_COOLDOWN_SECONDS, 'NX');
    if (fresh === null) {
      const ttl = await this.redis.ttl(cooldownKey);
      const wait = ttl > 0 ? ttl : RESEND_COOLDOWN_SECONDS;
      throw new AppError('RESEND_COOLDOWN', `Wait ${wait} s before asking for another e-mail.`, { headers: { 'retry-after': String(wait) } });
    }
    await this.mailRequests.enqueue('VERIFY_EMAIL', email);
    return {
      message: 'If an unverified account uses this address, a new verification e-mail is on its way.',
      coolDown: RESEND_COOLDOWN_SECONDS,
    };
  }

  /**
   * The queued part of AUTH-7: a new link when the address is the unverified primary address of
   * an account, at most VERIFICATION_MAILS_PER_ACCOUNT_PER_HOUR per account (the registration
   * mail included).
   */
  async sendVerification(email: string): Promise<MailRequestOutcome> {
    const found = await this.accounts.findByEmail(email);
    if (!found || found.addressVerified || found.user.email !== email) return 'none';
    const sent = await this.accounts.transaction(async (tx) => {
      const token = await oneTimeTokens.issueCapped(tx, found.user.id, 'VERIFY_EMAIL', email, this.config.VERIFICATION_MAILS_PER_ACCOUNT_PER_HOUR);
      if (!token) return false;
      await enqueueMail(tx, email, mailTemplates.verifyEmail(found.user.displayName, this.links.webLink('verify-email', token)));
      return true;
    });
    if (!sent) return 'capped';
    this.onMailQueued();
    return 'sent';
  }

  /** AUTH-15. */
  async checkAvailability(body: AccountCheckUserBody) {
    if (body.email) {
      const email = body.email.toLowerCase();
      if (await this.accounts.emailExists(email)) {
        return { isAvailable: false, message: 'This e-mail address is already in use.', errorField: 'email' as const };
      }
    }
    if (body.username) {
      const problem = usernameProblem(body.username);
      if (problem) return { isAvailable: false, message: problem, errorField: 'username' as const };
      if (await this.accounts.usernameExists(body.username)) {
        return { isAvailable: false, message: 'This username is already taken.', errorField: 'username' as const };
      }
    }
    return { isAvailable: true, message: 'Available.', errorField: null };
  }

  /**
   * R1 derivation inside the registering transaction. A transaction-scoped advisory lock on the
   * base makes concurrent derivations of the same base take turns: each sees the names committed
   * before it, so parallel registrations with one displayName get distinct suffixes instead of
   * colliding on the unique index.
   */
  async freeUsername(tx: Tx, displayName: string): Promise<string> {
    const base = usernameBase(displayName);
    await repo.lockUsernameBase(tx, base);
    const taken = new Set(await repo.usernamesLike(tx, base));
    if (!taken.has(base)) return base;
    for (let n = 2; ; n += 1) {
      const candidate = `${base}-${n}`;
      if (!taken.has(candidate)) return candidate;
    }
  }
}
