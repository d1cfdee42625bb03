import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { createLogger, newId } from '@crm/kit';
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
