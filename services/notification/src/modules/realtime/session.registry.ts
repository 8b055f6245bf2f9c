import type { Refusal } from './account-standing.js';
import { CLOSE, type StompSession } from './stomp-session.js';

/**
 * The STOMP sessions of this process: every open socket (for shutdown) and the authenticated ones
 * by user (for delivery and for closing a banned user's sessions).
 */
export class SessionRegistry {
  private readonly open = new Set<StompSession>();
  private readonly byUser = new Map<number, Set<StompSession>>();

  constructor(private readonly maxSessionsPerUser: number) {}

  get size(): number {
    return this.open.size;
  }

  track(session: StompSession): void {
    this.open.add(session);
  }

  attach(session: StompSession): Refusal | null {
    const userId = session.principal?.userId;
    if (userId === undefined) return { code: 'UNAUTHORIZED', message: 'Authentication is required.' };
    let sessions = this.byUser.get(userId);
    if (!sessions) {
      sessions = new Set();
      this.byUser.set(userId, sessions);
    }
    if (sessions.size >= this.maxSessionsPerUser) {
      return { code: 'FORBIDDEN', message: `At most ${this.maxSessionsPerUser} open sessions per user.` };
    }
    sessions.add(session);
    return null;
  }

  detach(session: StompSession): void {
    this.open.delete(session);
    const userId = session.principal?.userId;
    if (userId === undefined) return;
    const sessions = this.byUser.get(userId);
    sessions?.delete(session);
    if (sessions?.size === 0) this.byUser.delete(userId);
  }

  sessionsOf(userId: number): StompSession[] {
    return [...(this.byUser.get(userId) ?? [])];
  }

  connected(): StompSession[] {
    return [...this.byUser.values()].flatMap((sessions) => [...sessions]);
  }

  deliver(userId: number, key: string, body: string, rank?: number): void {
    for (const session of this.sessionsOf(userId)) session.deliver(key, body, rank);
  }

  closeUser(userId: number, refusal: Refusal): number {
    const sessions = this.sessionsOf(userId);
    for (const session of sessions) session.fail(refusal, CLOSE.policy);
    return sessions.length;
  }

  /** Shutdown: every socket, connected or not, gets an ERROR frame and is closed. */
  closeAll(refusal: Refusal): void {
    for (const session of [...this.open]) session.fail(refusal, CLOSE.goingAway);
  }
}
