import { type Clock, type Logger, type Worker, systemClock } from '@crm/kit';
import type { Integrations } from './integrations';

export interface IntegrationChecksOptions {
  integrations: Pick<Integrations, 'checkDueIntegrations'>;
  /** How old an integration's last check may grow before it is checked again. */
  intervalMs: number;
  log: Logger;
  clock?: Clock;
}

/** The most a round waits before it looks for due checks again, so a short interval is kept to. */
const MAX_IDLE_MS = 30_000;
const BATCH = 100;

/**
 * Keeps every enabled smtp integration's `status` current: each round checks again those whose
 * last check is an interval old (`checkDueIntegrations`), and logs each change of status. A server
 * that went down reads `error` within about an interval, and `connected` again once it is back.
 */
export function integrationChecksWorker(options: IntegrationChecksOptions): Worker {
  const { integrations, intervalMs, log, clock = systemClock } = options;
  return {
    name: 'integration-checks',
    async run(signal) {
      while (!signal.aborted) {
        const results = await integrations.checkDueIntegrations(intervalMs, { limit: BATCH, signal });
        for (const result of results) {
          if (!result.changed) continue;
          const fields = { integration_id: result.integration_id, workspace_id: result.workspace_id, status: result.status, status_reason: result.status_reason };
          if (result.status === 'error') log.warn(fields, 'integration check failed');
          else log.info(fields, 'integration check passed');
        }
        // A full batch may have left more due: take them at once.
        if (results.length < BATCH) await clock.sleep(Math.min(intervalMs, MAX_IDLE_MS), signal);
      }
    },
  };
}
