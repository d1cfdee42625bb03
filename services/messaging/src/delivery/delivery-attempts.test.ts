import { type ApiRecord, type ServiceClient, createPgClient, createServiceClient, messageToRecord } from '@crm/kit';
import { TEST_DATABASE_URL, expectEventually, sqlBackends } from '@crm/kit/testing';
import { sentEmails } from '@crm/messaging-contract';
import { type MessagingServiceDefinition, loadMessaging } from '@crm/proto';
import { SMTPServer } from 'smtp-server';
import { type SmtpSink, startSmtpSink } from '../../../../test/support/smtp-sink';
import { type MessagingHarness, openMessaging } from '../testing/harness';

jest.setTimeout(60_000);

/**
 * What a send shows of its delivery attempts (gateway/README.md, Messaging, "Attempts"), read as the
 * API reads it (GetSentEmail, decoded by the resource's declaration): a deferral keeps it queued
 * with its attempts, the server's answer and when it goes again; a 5xx at MAIL, RCPT or DATA ends
 * it bounced with the answer; a failure through the workspace's smtp integration names it. Real SMTP
 * servers (smtp-server), started here.
 */
describe.each(sqlBackends())('delivery attempts on $name', (backend) => {
  let sink: SmtpSink;
  let h: MessagingHarness;
  let client: ServiceClient<MessagingServiceDefinition>;

  /** The send as GET /v1/sent_emails/{id} has it. */
  const read = async (workspaceId: string, id: unknown): Promise<ApiRecord> =>
    messageToRecord(sentEmails, await client.call('GetSentEmail', { workspace_id: workspaceId, id: String(id) }));
  const queue = (workspaceId: string, contactId: string) =>
    h.messaging.service.sends.queue({ workspaceId }, { contact_id: contactId, subject: 'Hello', body: '<p>Hi</p>' });
  const contactIn = async (workspaceId: string, email: string) =>
    String((await h.people.service.contacts.create({ workspaceId }, { email, first_name: 'Ada' })).id);

  beforeAll(async () => {
    sink = await startSmtpSink();
    const reopen = backend.name === 'postgres' ? (schema: string) => createPgClient({ url: TEST_DATABASE_URL, schema, max: 4 }) : undefined;
    // A retry waits ten minutes: a deferred send is seen waiting, not retried under the test.
    h = await openMessaging(backend, { SMTP_URL: sink.url, DELIVERY_RETRY_BASE_MS: '600000', DELIVERY_MAX_ATTEMPTS: '3' }, reopen);
    client = createServiceClient(loadMessaging().crm.messaging.v1.MessagingService, h.messaging.server.address, { origin: 'test' });
  });
  afterAll(async () => {
    client?.close();
    await h?.close();
    await sink?.close();
  });
  beforeEach(() => {
    sink.rules = {};
  });

  test('a deferring recipient: the send stays queued, showing its attempts, the answer and when it goes again', async () => {
    sink.rules = { rcpt: (address) => (address === 'busy@example.com' ? { code: 451, message: '4.3.0 try again later' } : undefined) };
    const queued = await queue(h.workspaceId, await contactIn(h.workspaceId, 'busy@example.com'));
    expect(queued).toMatchObject({ status: 'queued', attempts: 0, last_error: null, next_attempt_at: null });
    const waiting = await expectEventually(async () => {
      const record = await read(h.workspaceId, queued.id);
      expect(record).toMatchObject({ status: 'queued', attempts: 1, last_error: expect.stringContaining('451 4.3.0 try again later') });
      return record;
    });
    expect(waiting.last_error).toBe('451 4.3.0 try again later (at RCPT TO)');
    expect(Date.parse(String(waiting.next_attempt_at))).toBeGreaterThan(Date.now() + 60_000);
    expect(waiting.failure_reason).toBeNull();
    expect(sink.countOf(String(queued.message_id))).toBe(0);
  });

  test.each([
    ['MAIL FROM', { mail: () => ({ code: 550, message: '5.7.1 sender not allowed' }) }, '550 5.7.1 sender not allowed', 'soft'],
    ['RCPT TO', { rcpt: () => ({ code: 550, message: '5.1.1 user unknown' }) }, '550 5.1.1 user unknown', 'hard'],
    ['DATA', { data: () => ({ code: 554, message: '5.7.1 message rejected as spam' }) }, '554 5.7.1 message rejected as spam', 'soft'],
  ] as const)('a 5xx at %s: the send ends bounced with the server\'s answer', async (command, rules, answer, severity) => {
    sink.rules = rules;
    const queued = await queue(h.workspaceId, await contactIn(h.workspaceId, `refused-${command.split(' ')[0]!.toLowerCase()}@example.com`));
    const bounced = await expectEventually(async () => {
      const record = await read(h.workspaceId, queued.id);
      expect(record.status).toBe('bounced');
      return record;
    });
    expect(bounced).toMatchObject({
      failure_reason: expect.stringMatching(new RegExp(`^${severity} bounce 5\\.\\d\\.1: ${answer} \\(at ${command}\\)$`)),
      attempts: 1,
      last_error: `${answer} (at ${command})`,
      next_attempt_at: null,
    });
    expect(sink.countOf(String(queued.message_id))).toBe(0);
  });

  test("a send through the workspace's smtp integration that fails says so: an unknown host, then refused credentials", async () => {
    // Integrations are looked up per workspace and kept a while: each case has a workspace of its own.
    const unresolvable = await h.directory.createWorkspace({ name: 'Nowhere' });
    const nowhere = await h.directory.createIntegration({
      workspace_id: unresolvable.id,
      type: 'smtp',
      name: 'Mail',
      secret: 'pw',
      config: { host: 'smtp.nowhere.invalid', port: 2525, from_email: 'ana@nowhere.invalid' },
    });
    const lost = await queue(unresolvable.id, await contactIn(unresolvable.id, 'ada@example.com'));
    const lostRecord = await expectEventually(async () => {
      const record = await read(unresolvable.id, lost.id);
      expect(record).toMatchObject({ status: 'queued', attempts: 1 });
      return record;
    });
    expect(lostRecord.last_error).toMatch(
      new RegExp(`^through smtp integration ${nowhere.id} \\(smtp\\.nowhere\\.invalid:2525\\): getaddrinfo \\w+ smtp\\.nowhere\\.invalid \\(at connection\\)$`),
    );

    const guarded = new SMTPServer({
      authMethods: ['PLAIN', 'LOGIN'],
      allowInsecureAuth: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onAuth: (_auth, _session, callback) => callback(Object.assign(new Error('5.7.8 authentication failed'), { responseCode: 535 })),
    });
    guarded.on('error', () => undefined);
    await new Promise<void>((resolve) => guarded.listen(0, '127.0.0.1', () => resolve()));
    try {
      const port = (guarded.server.address() as { port: number }).port;
      const refusing = await h.directory.createWorkspace({ name: 'Refused' });
      const wrong = await h.directory.createIntegration({
        workspace_id: refusing.id,
        type: 'smtp',
        name: 'Mail',
        secret: 'not-the-password',
        config: { host: '127.0.0.1', port, username: 'ana', from_email: 'ana@acme.test' },
      });
      const denied = await queue(refusing.id, await contactIn(refusing.id, 'ada@example.com'));
      // A refusal of our credentials is the integration's to fix, not a bounce: the send waits.
      const deniedRecord = await expectEventually(async () => {
        const record = await read(refusing.id, denied.id);
        expect(record).toMatchObject({ status: 'queued', attempts: 1 });
        return record;
      });
      expect(deniedRecord.last_error).toMatch(new RegExp(`^through smtp integration ${wrong.id} \\(127\\.0\\.0\\.1:${port}\\): 535 5\\.7\\.8 authentication failed \\(at AUTH \\w+\\)$`));
    } finally {
      await new Promise<void>((resolve) => guarded.close(() => resolve()));
    }
  });
});
