/**
 * The logger a service, repository or consumer is given: the subset of pino (and so of Fastify's
 * `app.log`) the fleet uses, so that `*.service.ts` files need no Fastify types and a unit test can
 * pass a fake.
 */
export interface Logger {
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

/** A logger that drops everything, for unit tests. */
export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };
