/** The stored customer no longer exists at the provider (deleted there, or a restarted stand-in). */
export class MissingCustomerError extends Error {
  constructor(readonly customerId: string) {
    super(`No such customer: ${customerId}`);
  }
}
