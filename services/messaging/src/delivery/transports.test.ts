import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { createLogger, newId } from '@crm/kit';
import { type Transports, createTransports } from './transports';

/**
 * The `log` provider's hand-over: the file appears only after the commit (`beforeEnd`), a refusal
 * leaves nothing, and a worker that dies between the commit and the rename leaves a message that
 * `finishLogged` completes, never one that is lost or written twice.
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
    expect(await transports.finishLogged(workspaceId, id)).toBe(false);
  });

  test('a worker that died after its commit left the message whole: finishing it gives exactly one file', async () => {
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
    expect(await transports.finishLogged(workspaceId, id)).toBe(true);
    expect(files()).toEqual([`${id}.eml`]);
    expect(readFileSync(path.join(mailDir, workspaceId, `${id}.eml`))).toEqual(message(id).raw);
    // Finishing again (a second recovering worker) changes nothing.
    expect(await transports.finishLogged(workspaceId, id)).toBe(true);
    expect(files()).toEqual([`${id}.eml`]);
  });
});
