import type { Logger } from '@msp/runtime';
import { KeysUnavailableError, TokenRejectedError, type AccessTokenVerifier, type Principal } from './access-token.verifier.js';
import { checkStanding, type RevocationReader } from './account-standing.js';
import type { AuthResult, StompSession } from './stomp-session.js';
import { placeholderStatus, statusRank, type TrackStatusStore } from './track-status.store.js';

const SWEEP_BATCH = 500;

/** The rules of the realtime endpoint: who may connect, what a track-status subscriber is sent. */
export class RealtimeService {
  constructor(
    private readonly verifier: Pick<AccessTokenVerifier, 'verify'>,
    private readonly redis: RevocationReader,
    private readonly store: Pick<TrackStatusStore, 'last'>,
    private readonly logger: Pick<Logger, 'warn' | 'error'>,
  ) {}

  /**
   * WS-1 CONNECT: a valid RS256 token of identity whose session is not revoked and whose user is
   * neither banned nor suspended. Redis unreachable fails closed, as at the gateway.
   */
  async authenticate(token: string | undefined): Promise<AuthResult> {
    if (!token) return { ok: false, refusal: { code: 'UNAUTHORIZED', message: 'Authentication is required.' } };
    let principal: Principal;
    try {
      principal = await this.verifier.verify(token);
    } catch (err) {
      if (err instanceof TokenRejectedError) return { ok: false, refusal: { code: 'UNAUTHORIZED', message: err.message } };
      if (err instanceof KeysUnavailableError) {
        this.logger.error({ err }, 'cannot verify tokens: JWKS unavailable');
        return { ok: false, refusal: { code: 'SERVICE_UNAVAILABLE', message: 'Tokens cannot be verified right now.' } };
      }
      throw err;
    }
    try {
      const [refusal] = await checkStanding(this.redis, [principal]);
      if (refusal) return { ok: false, refusal };
    } catch (err) {
      this.logger.warn({ err }, 'revocation lookup failed');
      return { ok: false, refusal: { code: 'SERVICE_UNAVAILABLE', message: 'Sessions cannot be checked right now.' } };
    }
    return { ok: true, principal };
  }

  /**
   * WS-2 on SUBSCRIBE: the last status when the subscriber is its uploader, nothing when it belongs
   * to someone else, the placeholder when no status is known (it carries nothing but the id the
   * subscriber gave).
   */
  async replayTrackStatus(principal: Principal, uploadId: string): Promise<{ body: string; rank: number } | null> {
    const last = await this.store.last(uploadId);
    // Rank 0: any real status of the upload supersedes the placeholder.
    if (last === null) return { body: JSON.stringify(placeholderStatus(uploadId)), rank: 0 };
    return last.artistId === principal.userId ? { body: JSON.stringify(last.status), rank: statusRank(last.status) } : null;
  }

  /**
   * Closes this process's sessions whose token was revoked or whose user got locked since CONNECT:
   * covers logouts (no event) and ban events missed while NATS was unreachable.
   */
  async sweep(registry: { connected(): ReadonlyArray<Pick<StompSession, 'principal' | 'fail'>> }): Promise<void> {
    const sessions = registry.connected();
    for (let i = 0; i < sessions.length; i += SWEEP_BATCH) {
      const batch = sessions.slice(i, i + SWEEP_BATCH).filter((s) => s.principal !== null);
      const refusals = await checkStanding(
        this.redis,
        batch.map((s) => s.principal!),
      );
      refusals.forEach((refusal, index) => {
        if (refusal) batch[index]?.fail(refusal);
      });
    }
  }
}
