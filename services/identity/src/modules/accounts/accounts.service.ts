import { AppError } from '@msp/errors';
import { UserRegistered, writeOutbox } from '@msp/events';
import { Prisma, type PrismaClient } from '../../generated/prisma/client.js';
import type { IdentityConfig } from '../../config.js';
import { accountsRepository as repo } from './accounts.repository.js';
import type { CheckUserBody, RegisterBody } from './accounts.schemas.js';
import { hashPassword, passwordProblem } from './passwords.js';
import { usernameBase, usernameProblem } from './username.js';

const MIN_AGE_YEARS = 13;

function ageInYears(dateOfBirth: string, now = new Date()): number {
  const [y, m, d] = dateOfBirth.split('-').map(Number) as [number, number, number];
  let age = now.getUTCFullYear() - y;
  if (now.getUTCMonth() + 1 < m || (now.getUTCMonth() + 1 === m && now.getUTCDate() < d)) age -= 1;
  return age;
}

function isUniqueViolation(err: unknown, field: string): boolean {
  return (
    err instanceof Prisma.PrismaClientKnownRequestError &&
    err.code === 'P2002' &&
    JSON.stringify(err.meta ?? {}).includes(field)
  );
}

export class AccountsService {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly config: IdentityConfig,
  ) {}

  /** AUTH-5. The account and its UserRegistered event commit together. */
  async register(body: RegisterBody, correlationId: string) {
    const email = body.email.toLowerCase();
    if (this.config.CAPTCHA_ENABLED && (!body.captchaToken || body.captchaToken !== this.config.CAPTCHA_BYPASS_TOKEN)) {
      throw new AppError('CAPTCHA_FAILED', 'Captcha verification failed.');
    }
    if (ageInYears(body.dateOfBirth) < MIN_AGE_YEARS) {
      throw AppError.validation([{ field: 'dateOfBirth', message: `You must be at least ${MIN_AGE_YEARS} years old.` }]);
    }
    if (body.username) {
      const problem = usernameProblem(body.username);
      if (problem) throw AppError.validation([{ field: 'username', message: problem }]);
    }
    const weak = passwordProblem(body.password, email, body.username ?? null);
    if (weak) throw new AppError('WEAK_PASSWORD', weak, { errors: [{ field: 'password', message: weak }] });
    if (await repo.emailExists(this.prisma, email)) throw new AppError('EMAIL_TAKEN', 'This e-mail address is already in use.');
    if (body.username && (await repo.usernameExists(this.prisma, body.username))) {
      throw new AppError('USERNAME_TAKEN', 'This username is already taken.');
    }
    const passwordHash = await hashPassword(body.password);

    for (let attempt = 0; attempt < 5; attempt += 1) {
      const username = body.username ?? (await this.freeUsername(body.displayName));
      try {
        const user = await this.prisma.$transaction(async (tx) => {
          const created = await repo.create(tx, {
            email,
            username,
            displayName: body.displayName,
            passwordHash,
            dateOfBirth: new Date(`${body.dateOfBirth}T00:00:00.000Z`),
            gender: body.gender ?? null,
            city: body.city ?? null,
            country: body.country ?? null,
          });
          await writeOutbox(
            tx,
            UserRegistered,
            {
              userId: created.id,
              username: created.username,
              displayName: created.displayName,
              avatarUrl: null,
              tier: created.tier,
              role: created.role,
              isPrivate: created.isPrivate,
              createdAt: created.createdAt.toISOString(),
            },
            { correlationId },
          );
          return created;
        });
        return {
          message: 'Registration successful. Check your e-mail to verify your account.',
          userId: user.id,
          username: user.username,
        };
      } catch (err) {
        if (isUniqueViolation(err, 'email')) throw new AppError('EMAIL_TAKEN', 'This e-mail address is already in use.');
        if (isUniqueViolation(err, 'username')) {
          if (body.username) throw new AppError('USERNAME_TAKEN', 'This username is already taken.');
          continue; // a concurrent registration took the derived name: derive again
        }
        throw err;
      }
    }
    throw new AppError('USERNAME_TAKEN', 'Could not find a free username; choose one.');
  }

  /** AUTH-15. */
  async checkAvailability(body: CheckUserBody) {
    if (body.email) {
      const email = body.email.toLowerCase();
      if (await repo.emailExists(this.prisma, email)) {
        return { isAvailable: false, message: 'This e-mail address is already in use.', errorField: 'email' as const };
      }
    }
    if (body.username) {
      const problem = usernameProblem(body.username);
      if (problem) return { isAvailable: false, message: problem, errorField: 'username' as const };
      if (await repo.usernameExists(this.prisma, body.username)) {
        return { isAvailable: false, message: 'This username is already taken.', errorField: 'username' as const };
      }
    }
    return { isAvailable: true, message: 'Available.', errorField: null };
  }

  private async freeUsername(displayName: string): Promise<string> {
    const base = usernameBase(displayName);
    const taken = new Set(await repo.usernamesLike(this.prisma, base));
    if (!taken.has(base)) return base;
    for (let n = 2; ; n += 1) {
      const candidate = `${base}-${n}`;
      if (!taken.has(candidate)) return candidate;
    }
  }
}
