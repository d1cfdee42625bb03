import type { Logger } from './logger';
import { untraced } from './tracing';

/** One thing a process needs in order to serve: its database, its event bus. */
export interface DependencyCheck {
  name: string;
  /** Resolves when the dependency answered; rejects (or outlives the timeout) when it did not. */
  check(): Promise<unknown>;
}

export interface HealthMonitorOptions {
  /** Time between two rounds of checks. Default 5 s, the readiness probes' period. */
  intervalMs?: number;
  /** How long one check may take before it counts as failed. Default 3 s. */
  timeoutMs?: number;
  /**
   * Consecutive failed rounds before the process reports NOT_SERVING. Default 2, so one slow answer
   * (a pool busy for a moment under load) does not take a pod out of its Service; one good round
   * restores SERVING.
   */
  failuresBeforeNotServing?: number;
  log?: Logger;
  /** What the log lines say when the checks start failing and when they pass again. */
  messages?: { down: string; up: string };
}

export interface HealthMonitor {
  /** The last outcome reported: true until the checks fail `failuresBeforeNotServing` rounds in a row. */
  readonly serving: boolean;
  /** Runs one round now and reports its outcome (the tests' handle; the timer runs rounds by itself). */
  checkNow(): Promise<boolean>;
  stop(): void;
}

export const DEFAULT_HEALTH_INTERVAL_MS = 5_000;

/**
 * The grpc.health.v1 name under which a service reports whether its event bus answers. Readiness
 * (the empty name and the services' own names, which the probes ask) does not follow it: with the
 * bus down a service still serves, and its outbox keeps the events it commits until the bus is back.
 */
export const EVENT_BUS_HEALTH = 'crm.event-bus';

function withTimeout(promise: Promise<unknown>, ms: number): Promise<unknown> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Readiness that means "this process can serve": checks the process's own dependencies (never its
 * peers, whose outage the callers answer with 503 on the routes concerned) on a timer, and reports
 * the outcome through `report` (grpc.health.v1 SERVING / NOT_SERVING). Changes are logged once.
 */
export function monitorHealth(report: (serving: boolean) => void, checks: readonly DependencyCheck[], options: HealthMonitorOptions = {}): HealthMonitor {
  const intervalMs = options.intervalMs ?? DEFAULT_HEALTH_INTERVAL_MS;
  const timeoutMs = options.timeoutMs ?? 3_000;
  const threshold = options.failuresBeforeNotServing ?? 2;
  let serving = true;
  let failedRounds = 0;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;

  const round = async (): Promise<boolean> => {
    // Probes are not traffic: no span for them, or every pod would export a trace every few seconds.
    const outcomes = await untraced(() => Promise.allSettled(checks.map((c) => withTimeout(Promise.resolve().then(() => c.check()), timeoutMs))));
    if (stopped) return serving;
    const failing = checks.flatMap((c, i) => {
      const outcome = outcomes[i]!;
      return outcome.status === 'rejected' ? [{ name: c.name, reason: String((outcome.reason as Error)?.message ?? outcome.reason) }] : [];
    });
    failedRounds = failing.length ? failedRounds + 1 : 0;
    const next = failedRounds === 0 ? true : failedRounds >= threshold ? false : serving;
    if (next !== serving) {
      serving = next;
      report(serving);
      if (serving) options.log?.info(options.messages?.up ?? 'dependencies reachable again: SERVING');
      else options.log?.warn({ failing }, options.messages?.down ?? 'a dependency is unreachable: NOT_SERVING until it answers');
    }
    return serving;
  };

  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => void round().finally(schedule), intervalMs);
    timer.unref();
  };
  schedule();

  return {
    get serving() {
      return serving;
    },
    checkNow: round,
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
