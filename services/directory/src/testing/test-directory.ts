import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { CrmError, createLogger } from '@crm/kit';
import { type DirectoryService, createDirectoryService } from '../directory.service';
import type { SmtpCheck } from '../integration-check';
import { type PasswordHasher, argon2Hasher } from '../password';
import type { PasswordMailer } from '../password-mail';
import type { DocumentCollection, DocumentStore } from '../store/document-store';
import { createEmbeddedStore } from '../store/embedded-store';

/** What the directory's tests share (directory.service.test.ts and one test file per aggregate). */

export const T0 = new Date('2026-05-15T10:00:00.000Z');
export const secretsKey = randomBytes(32);
export const cursorSecret = randomBytes(32);
export const OTHER_UUID = '0196a7b4-3c2d-7e5f-8a9b-0c1d2e3f4a5b';

/** A store that counts calls per collection and method, to prove what an operation did not do. */
function countingStore(inner: DocumentStore) {
  const calls: string[] = [];
  const store: DocumentStore = {
    collection<T extends { _id: string }>(name: string): DocumentCollection<T> {
      const coll = inner.collection<T>(name);
      const counted = {} as DocumentCollection<T>;
      for (const method of ['insertOne', 'findOne', 'find', 'updateOne', 'updateMany', 'deleteOne', 'deleteMany'] as const) {
        (counted as unknown as Record<string, unknown>)[method] = (...args: unknown[]) => {
          calls.push(`${name}.${method}`);
          return (coll[method] as (...a: unknown[]) => unknown)(...args);
        };
      }
      return counted;
    },
    ensureIndexes: (specs) => inner.ensureIndexes(specs),
    close: () => inner.close(),
  };
  return { store, calls };
}

export async function expectCrmError(promise: Promise<unknown>, code: CrmError['code'], reason?: string): Promise<CrmError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(CrmError);
  expect((err as CrmError).code).toBe(code);
  if (reason !== undefined) expect((err as CrmError).reason).toBe(reason);
  return err as CrmError;
}

/**
 * argon2id at a low cost (256 KiB, one pass), counting its calls: sign-in tests hash and check many
 * passwords, and the count proves which paths check one. `password.test.ts` runs the real defaults.
 */
export function countingHasher(inner: PasswordHasher = argon2Hasher({ memoryCost: 256, timeCost: 1 })) {
  const counts = { hash: 0, verify: 0 };
  const hasher: PasswordHasher = {
    hash: (password) => {
      counts.hash++;
      return inner.hash(password);
    },
    verify: (stored, password) => {
      counts.verify++;
      return inner.verify(stored, password);
    },
  };
  return { hasher, counts };
}

/** A logger whose lines a test reads, to prove what was not logged. */
export function capturedLog() {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      lines.push(chunk.toString('utf8'));
      callback();
    },
  });
  return { log: createLogger('test', 'debug', destination), lines };
}

export const TEST_PUBLIC_URL = 'https://crm.acme.test/';

export interface TestDirectory {
  /** The embedded store itself: what a test reads or writes here is not counted in `calls`. */
  raw: DocumentStore;
  /** `collection.method` of each store call the service made. */
  calls: string[];
  /** The service's clock: T0 until `advance` moves it. */
  clock: () => Date;
  advance: (ms: number) => void;
  directory: DirectoryService;
  /** Calls of the password hasher (`countingHasher`). */
  hashes: { hash: number; verify: number };
  /** Every line the service logged. */
  logLines: string[];
}

/**
 * A check that finds every server up, without a connection: the aggregates' tests are about
 * records, not networks (integration-checks.test.ts checks real servers).
 */
export const passingSmtpCheck: SmtpCheck = { timeoutMs: 1_000, check: async () => ({ status: 'connected', reason: null }) };

/** A directory over a new in-memory embedded store; the test closes `raw`. */
export async function openTestDirectory(options: { smtpCheck?: SmtpCheck; passwordMailer?: PasswordMailer } = {}): Promise<TestDirectory> {
  const raw = await createEmbeddedStore();
  const counting = countingStore(raw);
  let now = T0;
  const clock = () => now;
  const advance = (ms: number) => {
    now = new Date(now.getTime() + ms);
  };
  const { hasher, counts } = countingHasher();
  const { log, lines } = capturedLog();
  const directory = createDirectoryService({
    store: counting.store,
    secretsKey,
    keyPepper: 'test-pepper',
    now: clock,
    cursorSecret,
    smtpCheck: options.smtpCheck ?? passingSmtpCheck,
    publicUrl: TEST_PUBLIC_URL,
    passwordHasher: hasher,
    passwordMailer: options.passwordMailer,
    log,
  });
  return { raw, calls: counting.calls, clock, advance, directory, hashes: counts, logLines: lines };
}
