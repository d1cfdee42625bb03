import { randomBytes } from 'node:crypto';
import * as net from 'node:net';
import { Writable } from 'node:stream';
import { createLogger, withDeadline } from '@crm/kit';
import { expectEventually } from '@crm/kit/testing';
import { COLLECTIONS } from './directory.schema';
import { type DirectoryService, createDirectoryService } from './directory.service';
import { type SmtpCheck, createSmtpCheck } from './integration-check';
import { type RunningDirectory, startDirectory } from './main';
import type { DocumentStore } from './store/document-store';
import { createEmbeddedStore } from './store/embedded-store';
import { cursorSecret, secretsKey } from './testing/test-directory';
import { type TestSmtpServer, startTestSmtpServer } from './testing/test-smtp-server';

/**
 * An smtp integration's status against real SMTP servers: the check connects, says EHLO, upgrades
 * with STARTTLS (the server offers AUTH only after it) and signs in with the integration's secret,
 * at creation and then periodically, and says why when it fails.
 */

const USERNAME = 'ana@acme.test';
const PASSWORD = 'correct horse battery staple';

let server: TestSmtpServer;
let store: DocumentStore;
let check: SmtpCheck;
let directory: DirectoryService;
let workspaceId: string;

beforeAll(async () => {
  server = await startTestSmtpServer({ username: USERNAME, password: PASSWORD });
  check = createSmtpCheck({ timeoutMs: 5_000, tls: { ca: server.ca } });
});

afterAll(async () => {
  await server.stop();
});

beforeEach(async () => {
  store = await createEmbeddedStore();
  directory = createDirectoryService({ store, secretsKey, cursorSecret, smtpCheck: check });
  workspaceId = (await directory.createWorkspace({ name: 'Acme' })).id;
});

afterEach(async () => {
  await store.close();
});

const smtp = (config: Record<string, unknown>, secret = PASSWORD) => ({ workspace_id: workspaceId, type: 'smtp', name: 'Mail', secret, config });
const ourServer = (more: Record<string, unknown> = {}) => ({ host: server.host, port: server.port, username: USERNAME, ...more });

/** A port on 127.0.0.1 that nothing listens on. */
async function closedPort(): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', () => resolve()));
  const { port } = probe.address() as net.AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

describe('the check at creation', () => {
  test('a server that takes the password over STARTTLS: connected, and the answer says so', async () => {
    const logins = server.logins;
    const integration = await directory.createIntegration(smtp(ourServer()));
    expect(integration).toMatchObject({ status: 'connected', status_reason: null });
    expect(await directory.getIntegration(workspaceId, integration.id)).toEqual(integration);
    // It signed in, which the server allows only once the connection is encrypted.
    expect(server.logins).toBe(logins + 1);
  });

  test("a wrong password: error, with the server's 535 answer and never the password", async () => {
    const secret = 'Tr0ub4dor&3-not-the-password';
    const integration = await directory.createIntegration(smtp(ourServer(), secret));
    expect(integration.status).toBe('error');
    expect(integration.status_reason).toContain('535 5.7.8 authentication failed');
    const stored = await store.collection(COLLECTIONS.integrations).findOne({ _id: integration.id });
    expect(JSON.stringify([integration, stored])).not.toContain(secret);
  });

  test('a closed port: error, connection refused', async () => {
    const port = await closedPort();
    const integration = await directory.createIntegration(smtp({ host: '127.0.0.1', port }));
    expect(integration).toMatchObject({ status: 'error', status_reason: `connect ECONNREFUSED 127.0.0.1:${port}` });
  });

  test('a host that does not resolve: error, not found', async () => {
    const integration = await directory.createIntegration(smtp({ host: 'smtp.example.invalid', port: 587 }));
    expect(integration).toMatchObject({ status: 'error', status_reason: 'getaddrinfo ENOTFOUND smtp.example.invalid' });
  });

  test('a server that never answers: creation returns within the caller\'s deadline, and the check ends in error by its own timeout', async () => {
    const silent = net.createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', () => resolve()));
    const { port } = silent.address() as net.AddressInfo;
    try {
      const quick = createDirectoryService({ store, secretsKey, cursorSecret, smtpCheck: createSmtpCheck({ timeoutMs: 1_500 }) });
      const started = Date.now();
      // The command line's own deadline is 10 s; 1.2 s here leaves creation 200 ms to wait.
      const integration = await withDeadline(Date.now() + 1_200, () => quick.createIntegration(smtp({ host: '127.0.0.1', port })));
      expect(Date.now() - started).toBeLessThan(1_200);
      expect(integration).toMatchObject({ status: 'checking', status_reason: null });
      const checked = await expectEventually(
        async () => {
          const now = await quick.getIntegration(workspaceId, integration.id);
          expect(now.status).toBe('error');
          return now;
        },
        { timeoutMs: 10_000 },
      );
      expect(checked.status_reason).toMatch(/Greeting never received|no answer from 127\.0\.0\.1/);
    } finally {
      silent.close();
    }
  });

  test('an integration without a username is checked as it will send: connect, EHLO, STARTTLS, no AUTH', async () => {
    const logins = server.logins;
    const integration = await directory.createIntegration(smtp({ host: server.host, port: server.port }));
    expect(integration).toMatchObject({ status: 'connected', status_reason: null });
    expect(server.logins).toBe(logins);
  });

  test('a certificate the client does not trust is an error, as it is when messaging sends', async () => {
    const untrusting = createDirectoryService({ store, secretsKey, cursorSecret, smtpCheck: createSmtpCheck({ timeoutMs: 5_000 }) });
    const integration = await untrusting.createIntegration(smtp(ourServer()));
    expect(integration.status).toBe('error');
    expect(integration.status_reason).toMatch(/certificate/);
  });
});

describe('the periodic check', () => {
  test('replicas checking at once check an integration once', async () => {
    const integration = await directory.createIntegration(smtp(ourServer()));
    // Two replicas an interval after that first check.
    const later = new Date(Date.now() + 120_000);
    const replicas = [1, 2].map(() => createDirectoryService({ store, secretsKey, cursorSecret, smtpCheck: check, now: () => later }));
    const logins = server.logins;
    const rounds = await Promise.all(replicas.map((replica) => replica.checkDueIntegrations(60_000)));
    expect(rounds.flat()).toEqual([{ integration_id: integration.id, workspace_id: workspaceId, status: 'connected', status_reason: null, changed: false }]);
    expect(server.logins).toBe(logins + 1);
    // Checked now: due again only an interval from now.
    expect(await Promise.all(replicas.map((replica) => replica.checkDueIntegrations(60_000)))).toEqual([[], []]);
  });

  test('flips the status when the server goes down and when it is back, and never logs the secret', async () => {
    const lines: string[] = [];
    const log = createLogger(
      'directory',
      'info',
      new Writable({
        write(chunk: Buffer, _encoding, done) {
          lines.push(chunk.toString());
          done();
        },
      }),
    );
    const running: RunningDirectory = await startDirectory({
      store,
      secretsKey,
      keyPepper: 'pepper',
      cursorSecret: randomBytes(32),
      grpcAddr: '127.0.0.1:0',
      log,
      integrationCheckIntervalMs: 50,
      smtpCheck: check,
    });
    try {
      const { id } = await running.service.createIntegration(smtp(ourServer()));
      const status = async () => {
        const { status: now, status_reason: reason } = await running.service.getIntegration(workspaceId, id);
        return { status: now, status_reason: reason };
      };
      expect(await status()).toEqual({ status: 'connected', status_reason: null });

      await server.stop();
      await expectEventually(async () => expect(await status()).toEqual({ status: 'error', status_reason: `connect ECONNREFUSED 127.0.0.1:${server.port}` }), {
        timeoutMs: 10_000,
      });
      await server.start();
      await expectEventually(async () => expect(await status()).toEqual({ status: 'connected', status_reason: null }), { timeoutMs: 10_000 });

      // Each change is logged (a check cut short while the server closed may add one), never the secret.
      const changes = lines
        .map((line) => JSON.parse(line) as { msg: string; integration_id?: string; status?: string })
        .filter((line) => line.integration_id === id)
        .map((line) => [line.msg, line.status]);
      expect(changes[0]).toEqual(['integration check failed', 'error']);
      expect(changes.at(-1)).toEqual(['integration check passed', 'connected']);
      expect(lines.join('\n')).not.toContain(PASSWORD);
    } finally {
      await running.stop(100);
    }
  });
});
