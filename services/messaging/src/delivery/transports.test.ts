import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { AddressInfo } from 'node:net';
import { createLogger, newId } from '@crm/kit';
import { SMTPServer } from 'smtp-server';
import { type Transports, createTransports, describeFailure, smtpFailure } from './transports';

/**
 * The `log` provider's hand-over: the file appears only after the commit (`beforeEnd`), a refusal
 * leaves nothing, and a worker that dies between the commit and the rename leaves the send to be
 * written again, which gives the same one file, never none and never two.
 */
describe('the log provider', () => {
  let mailDir: string;
  let transports: Transports;
  const workspaceId = newId();
  const message = (sentEmailId: string) => ({
    workspaceId,
    sentEmailId,
    raw: Buffer.from(`Message-ID: <${sentEmailId}@mail.test>\r\nSubject: hi\r\n\r\nHello\r\n`),
    envelope: { from: 'a@mail.test', to: ['b@example.com'] },
  });
  const files = () => (existsSync(path.join(mailDir, workspaceId)) ? readdirSync(path.join(mailDir, workspaceId)).sort() : []);

  beforeEach(() => {
    mailDir = mkdtempSync(path.join(tmpdir(), 'crm-log-provider-'));
    // No smtp integration and no SMTP_URL: every workspace gets the log provider.
    transports = createTransports({ senders: { sender: async () => ({ verp: true }), smtpAccount: async () => undefined }, mailDir, log: createLogger('test', 'silent') });
  });
  afterEach(() => rmSync(mailDir, { recursive: true, force: true }));

  test('writes the whole message, and only once the hand-over is committed', async () => {
    const id = newId();
    const transport = await transports.forWorkspace(workspaceId);
    expect(transport.provider).toBe('log');
    let seenAtCommit: string[] = [];
    await transport.send(message(id), async () => {
      seenAtCommit = files();
    });
    expect(seenAtCommit).toEqual([`${id}.eml.tmp`]);
    expect(files()).toEqual([`${id}.eml`]);
    expect(readFileSync(path.join(mailDir, workspaceId, `${id}.eml`))).toEqual(message(id).raw);
  });

  test('a hand-over called off at the commit leaves no file', async () => {
    const id = newId();
    const transport = await transports.forWorkspace(workspaceId);
    await expect(
      transport.send(message(id), async () => {
        throw new Error('send called off: status failed');
      }),
    ).rejects.toThrow(/called off/);
    expect(files()).toEqual([]);
  });

  test('a worker that died after its commit: the send written again gives exactly one file', async () => {
    const id = newId();
    const transport = await transports.forWorkspace(workspaceId);
    let committed!: () => void;
    const atCommit = new Promise<void>((resolve) => (committed = resolve));
    // The commit happens and the worker never runs again (its process was killed).
    void transport.send(message(id), () => {
      committed();
      return new Promise<void>(() => undefined);
    });
    await atCommit;
    expect(files()).toEqual([`${id}.eml.tmp`]);
    // The next worker takes the send again after the lease.
    await transport.send(message(id), async () => undefined);
    expect(files()).toEqual([`${id}.eml`]);
    expect(readFileSync(path.join(mailDir, workspaceId, `${id}.eml`))).toEqual(message(id).raw);
  });
});

describe('a failed attempt, as last_error tells it', () => {
  test("the server's answer and the step it came at; through an integration, which one", () => {
    const refused = Object.assign(new Error("Can't send mail - all recipients were rejected: 451 4.3.0 try again later"), {
      response: '451 4.3.0 try again later',
      responseCode: 451,
      command: 'RCPT TO',
    });
    expect(describeFailure(smtpFailure(refused))).toBe('451 4.3.0 try again later (at RCPT TO)');
    const unresolved = Object.assign(new Error('getaddrinfo ENOTFOUND smtp.nowhere.invalid'), { code: 'EDNS', command: 'CONN' });
    expect(describeFailure(smtpFailure(unresolved), 'smtp integration 42 (smtp.nowhere.invalid:587)')).toBe(
      'through smtp integration 42 (smtp.nowhere.invalid:587): getaddrinfo ENOTFOUND smtp.nowhere.invalid (at connection)',
    );
  });
});

/**
 * A server that answers AUTH by echoing what it was sent, in every form the password travels in:
 * nothing of it reaches the failure the worker stores as `last_error` and logs.
 */
describe('a failure through a workspace server that echoes the credentials', () => {
  const password = 'correct-horse-battery-staple';
  let server: SMTPServer;
  let port: number;

  beforeAll(async () => {
    server = new SMTPServer({
      authMethods: ['PLAIN', 'LOGIN'],
      allowInsecureAuth: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onAuth(auth, _session, callback) {
        const plain = Buffer.from(`\u0000${auth.username}\u0000${auth.password}`).toString('base64');
        const login = Buffer.from(String(auth.password)).toString('base64');
        callback(Object.assign(new Error(`bad login ${auth.password} ${login} ${plain}`), { responseCode: 535 }));
      },
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  test('carries none of the password, in clear or in base64', async () => {
    const account = { integrationId: 'int-1', version: '1', host: '127.0.0.1', port, secure: false, username: 'ada', password };
    const transports = createTransports({
      senders: { sender: async () => ({ verp: true }), smtpAccount: async () => account },
      mailDir: tmpdir(),
      log: createLogger('test', 'silent'),
    });
    try {
      const transport = await transports.forWorkspace(newId());
      const message = { workspaceId: 'w', sentEmailId: newId(), raw: Buffer.from('Subject: hi\r\n\r\nHello\r\n'), envelope: { from: 'a@mail.test', to: ['b@example.com'] } };
      const error = await transport.send(message, async () => undefined).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeDefined();
      const described = describeFailure(smtpFailure(error), transport.via);
      expect(described).toMatch(/535/);
      const forms = [password, Buffer.from(password).toString('base64'), Buffer.from(`\u0000ada\u0000${password}`).toString('base64')];
      for (const form of forms) {
        expect(described).not.toContain(form);
        expect(JSON.stringify(error, Object.getOwnPropertyNames(error))).not.toContain(form);
      }
      expect(described).toContain('[secret]');
    } finally {
      transports.close();
    }
  });
});
