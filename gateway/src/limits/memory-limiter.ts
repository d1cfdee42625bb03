import { type RateLimiter, type RateLimits, type WindowLog, decide } from './rate-limiter';

/**
 * One name's admitted timestamps, oldest first: appended at the end and pruned from the front, each
 * in amortized constant time. A log holds every admission of its window (the default workspace
 * window is 60 s of a whole workspace's requests), so a request must not cost a copy of it.
 */
export class TimeLog implements WindowLog {
  private times: number[] = [];
  private start = 0;

  get length(): number {
    return this.times.length - this.start;
  }

  at(index: number): number | undefined {
    return index >= 0 && index < this.length ? this.times[this.start + index] : undefined;
  }

  append(time: number): void {
    this.times.push(time);
  }

  /** Drops the entries at or before `time` from the front (the log is in admission order). */
  dropThrough(time: number): void {
    const { times } = this;
    let start = this.start;
    while (start < times.length && times[start]! <= time) start++;
    if (start === times.length) {
      this.times = [];
      this.start = 0;
    } else if (start > 1024 && start * 2 > times.length) {
      // Reclaim the dropped front once it is most of the array: what is copied is never more than
      // what was dropped since the last reclaim, so drops stay amortized constant.
      this.times = times.slice(start);
      this.start = 0;
    } else {
      this.start = start;
    }
  }
}

/**
 * The in-process limiter: all-in-one's default, and the fallback of a gateway that lost Redis. Same
 * algorithm as the Redis script, on this process's clock.
 */
export function createMemoryLimiter(limits: RateLimits, now: () => number = Date.now): RateLimiter {
  const logs = new Map<string, TimeLog>();
  const pruned = (name: string, windowMs: number, at: number) => {
    const log = logs.get(name) ?? new TimeLog();
    log.dropThrough(at - windowMs);
    return log;
  };
  /** Keeps a log with entries, forgets an empty one. */
  const keep = (name: string, log: TimeLog) => {
    if (log.length) logs.set(name, log);
    else logs.delete(name);
  };
  return {
    async hit(workspaceId, keyId) {
      const at = now();
      const keyName = `k:${keyId}`;
      const workspaceName = `w:${workspaceId}`;
      const keyLog = pruned(keyName, limits.keyWindowMs, at);
      const workspaceLog = pruned(workspaceName, limits.workspaceWindowMs, at);
      const { decision, record } = decide(limits, at, keyLog, workspaceLog);
      if (record) {
        keyLog.append(at);
        workspaceLog.append(at);
      }
      keep(keyName, keyLog);
      keep(workspaceName, workspaceLog);
      return decision;
    },
    async close() {
      logs.clear();
    },
  };
}
