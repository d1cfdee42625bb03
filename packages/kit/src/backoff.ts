/**
 * Exponential backoff: base, 2·base, 4·base … capped. `attempt` counts from 1. The one schedule of
 * every retry that waits between attempts: a send's delivery, a flow step, a worker's round, the
 * outbox relay and a bus's redelivery.
 */
export function backoffMs(attempt: number, baseMs: number, maxMs: number): number {
  return Math.min(maxMs, baseMs * 2 ** Math.max(0, Math.min(attempt - 1, 30)));
}
