import { z } from 'zod';

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  ${problems.join('\n  ')}`);
    this.name = 'ConfigError';
  }
}

/** Keys with development defaults that must never reach a cluster. */
export const FLEET_SECRETS = ['GATEWAY_ASSERTION_KEY', 'INTERNAL_SERVICE_KEY', 'GATEWAY_SIGNING_KEY', 'METRICS_TOKEN'] as const;

/** Why a variable is required in production, printed with the boot failure. */
const PRODUCTION_HINTS: Record<string, string> = {
  SMTP_URL: 'mail must leave: login needs a verified e-mail; the .eml file fallback is for development only',
  MEDIA_PUBLIC_BASE_URL: "the public origin of the bucket's images (CDN or ingress); the object store's internal host is not reachable by browsers",
  ADMIN_ACCOUNTS: 'the admin accounts as a JSON array, from a Secret; [] for none',
  MFA_ENCRYPTION_KEY: 'encrypts stored TOTP secrets; at least 32 random characters, from a Secret, never rotated',
};

/**
 * Parses the environment once, at boot. Unknown variables are ignored; a bad value stops the
 * process with every problem listed. In production the variables named in `requiredInProduction`
 * must be set explicitly: local defaults must never silently reach a cluster.
 */
export function loadConfig<Shape extends z.ZodRawShape>(
  shape: Shape,
  options: { env?: Record<string, string | undefined>; requiredInProduction?: readonly string[] } = {},
): z.infer<z.ZodObject<Shape>> {
  const env = options.env ?? process.env;
  const problems: string[] = [];
  if (env.NODE_ENV === 'production') {
    // Secrets every process that declares them needs in production, whatever its own list says.
    const fleetSecrets = FLEET_SECRETS.filter((name) => name in shape);
    for (const name of [...(options.requiredInProduction ?? []), ...fleetSecrets]) {
      if (env[name] === undefined || env[name] === '')
        problems.push(`${name}: required in production${PRODUCTION_HINTS[name] ? ` (${PRODUCTION_HINTS[name]})` : ''}`);
    }
  }
  const cleaned: Record<string, string> = {};
  for (const key of Object.keys(shape)) {
    const value = env[key];
    if (value !== undefined && value !== '') cleaned[key] = value;
  }
  const parsed = z.object(shape).safeParse(cleaned);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) problems.push(`${issue.path.join('.')}: ${issue.message}`);
  }
  if (problems.length > 0 || !parsed.success) throw new ConfigError(problems);
  return parsed.data;
}
