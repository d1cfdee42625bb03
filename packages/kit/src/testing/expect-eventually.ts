export interface EventuallyOptions {
  /** Give up after this long. Default 5 s. */
  timeoutMs?: number;
  /** Pause between attempts. Default 20 ms. */
  intervalMs?: number;
}

/**
 * Awaits an asynchronous outcome: runs `assertion` until it stops throwing and returns its value,
 * or rethrows its last error once `timeoutMs` has passed. Tests use this instead of sleeping for a
 * fixed time, so they are as fast as the system allows and fail with the real assertion message.
 */
export async function expectEventually<T>(
  assertion: () => T | Promise<T>,
  { timeoutMs = 5_000, intervalMs = 20 }: EventuallyOptions = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await assertion();
    } catch (error) {
      if (Date.now() >= deadline) {
        if (error instanceof Error) error.message = `still failing after ${timeoutMs} ms:\n${error.message}`;
        throw error;
      }
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
  }
}
