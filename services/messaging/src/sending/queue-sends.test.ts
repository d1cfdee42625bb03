import { type ServiceClient, createServiceClient, errorFromPayload, newId, requestFingerprint } from '@crm/kit';
import { expectEventually, sqlBackends } from '@crm/kit/testing';
import { MessagingEvents, type MessagingServiceDefinition, type QueueSendItem, type QueueSendRequest, loadMessaging } from '@crm/proto';
import fc from 'fast-check';
import { useTestTracing } from '../../../../packages/kit/src/events/event-bus.contract';
import { startSmtpSink } from '../../../../test/support/smtp-sink';
import { type MessagingHarness, openMessaging } from '../testing/harness';

jest.setTimeout(120_000);

/**
 * QueueSends, the flow engine's batch of a round's emails: each item must come out exactly as its
 * own QueueSend call would (the same send, or the same error), its key must hold as that call's
 * would (a repeat replays, a reused key is refused), and the new ones are written together.
 */
const exported = useTestTracing();

describe.each(sqlBackends())('QueueSends on $name', (backend) => {
  let h: MessagingHarness;
  let client: ServiceClient<MessagingServiceDefinition>;
  const contacts: Record<string, string> = {};
  let earlierSend: string;
  let template: string;
  /** The traceparent each event was published with, by `type sent_email_id`. */
  const publishedTrace = new Map<string, string | undefined>();
  const traceOf = (type: string, sentEmailId: string) => publishedTrace.get(`${type} ${sentEmailId}`);

  beforeAll(async () => {
    h = await openMessaging(backend, { SMTP_URL: 'smtp://127.0.0.1:1', DELIVERY_MAX_ATTEMPTS: '1' });
    // One observer for the whole suite: on the in-process bus a stopped durable refuses later events.
    await h.bus.subscribe({
      durable: 'queue-sends-traces',
      subjects: [MessagingEvents.SentEmailQueued, MessagingEvents.EmailSent],
      handler: async (event, meta) => void publishedTrace.set(`${event.type} ${(event.data as { sent_email_id: string }).sent_email_id}`, meta.headers.traceparent),
    });
    // Nothing needs delivering here: the worker fails each send against a closed port, after the test read it.
    client = createServiceClient(loadMessaging().crm.messaging.v1.MessagingService, h.messaging.server.address, { origin: 'flows' });
    contacts.plain = await h.contact('plain@example.com');
    contacts.owned = await h.contact('owned@example.com', { owner_id: h.userId, first_name: 'Owen' });
    contacts.suppressed = await h.contact('gone@example.com');
    contacts.noEmail = String((await h.people.service.contacts.create({ workspaceId: h.workspaceId }, { first_name: 'Nomail', phone: '+15550100' })).id);
    await h.db.query(`INSERT INTO suppressions (workspace_id, email_lower, reason, created_at) VALUES ($1, 'gone@example.com', 'hard_bounce', now())`, [h.workspaceId]);
    earlierSend = String((await h.messaging.service.sends.queue({ workspaceId: h.workspaceId }, { contact_id: contacts.plain, subject: 'First', body: '<p>1</p>' })).id);
    template = String((await h.messaging.service.emailTemplates.create({ workspaceId: h.workspaceId }, { name: 'T', subject: 'Hi {{ first_name }}', body: '<p>{{ first_name }}</p>' })).id);
  });
  const sinks: { close(): Promise<void> }[] = [];
  afterAll(async () => {
    client?.close();
    await h?.close();
    for (const sink of sinks) await sink.close();
  });

  /** The send one step would ask for: `kind` picks what is right or wrong with it. */
  const KINDS = ['plain', 'owned', 'template', 'reply', 'suppressed', 'noEmail', 'unknownContact', 'badLiquid', 'noBody', 'unknownReply', 'unknownTemplate'] as const;
  type Kind = (typeof KINDS)[number];
  const flow = { flow_id: newId(), flow_node_id: newId() };
  function sendOf(kind: Kind, enrollment: string): QueueSendRequest {
    const base = { workspace_id: h.workspaceId, ...flow, flow_enrollment_id: enrollment, subject: 'Hello {{ first_name }}', body: '<p>Hi {{ first_name }}</p>' };
    switch (kind) {
      case 'plain':
        return { ...base, contact_id: contacts.plain! };
      case 'owned':
        return { ...base, contact_id: contacts.owned!, owner_id: h.userId };
      case 'template':
        return { workspace_id: h.workspaceId, ...flow, flow_enrollment_id: enrollment, contact_id: contacts.owned!, template_id: template };
      case 'reply':
        return { ...base, subject: undefined, contact_id: contacts.plain!, reply_to_sent_email_id: earlierSend };
      case 'suppressed':
        return { ...base, contact_id: contacts.suppressed! };
      case 'noEmail':
        return { ...base, contact_id: contacts.noEmail! };
      case 'unknownContact':
        return { ...base, contact_id: newId() };
      case 'badLiquid':
        return { ...base, contact_id: contacts.plain!, body: '<p>{% if %}</p>' };
      case 'noBody':
        return { ...base, contact_id: contacts.plain!, body: undefined };
      case 'unknownReply':
        return { ...base, contact_id: contacts.plain!, reply_to_sent_email_id: newId() };
      case 'unknownTemplate':
        return { workspace_id: h.workspaceId, ...flow, flow_enrollment_id: enrollment, contact_id: contacts.plain!, template_id: newId() };
    }
  }
  const defined = (send: QueueSendRequest) => Object.fromEntries(Object.entries(send).filter(([, v]) => v !== undefined)) as QueueSendRequest;
  const itemOf = (send: QueueSendRequest, key: string): QueueSendItem => ({
    send: defined(send),
    idempotency_key: key,
    fingerprint: requestFingerprint('QueueSend', defined(send)),
  });

  type Outcome = { ok: true; id: string; send: Record<string, unknown> } | { ok: false; code: string; reason?: string; details?: unknown };
  const batch = async (items: QueueSendItem[]): Promise<Outcome[]> => {
    const { results } = await client.call('QueueSends', { origin: 'flows', items });
    expect(results).toHaveLength(items.length);
    return results.map((result) => {
      if (result.sent) return { ok: true, id: result.sent.id, send: result.sent as unknown as Record<string, unknown> };
      const error = errorFromPayload(result.error!)!;
      return { ok: false, code: error.code, reason: (error as { reason?: string }).reason, details: error.details };
    });
  };
  const single = async (item: QueueSendItem): Promise<Outcome> => {
    try {
      const sent = await client.call('QueueSend', item.send!, { idempotencyKey: item.idempotency_key });
      return { ok: true, id: sent.id, send: sent as unknown as Record<string, unknown> };
    } catch (error) {
      const e = error as { code: string; reason?: string; details?: unknown };
      return { ok: false, code: e.code, reason: e.reason, details: e.details };
    }
  };
  /** What must be equal between two ways of queueing the same send: all but its own ids and times. */
  const shape = (outcome: Outcome) => {
    if (!outcome.ok) return outcome;
    const { id: _id, message_id: _m, created_at: _c, updated_at: _u, ...rest } = outcome.send;
    return { ok: true, ...rest };
  };
  const countRows = async (table: string, where: string, params: unknown[]) =>
    (await h.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table} WHERE ${where}`, params)).rows[0]!.n;

  test('each item comes out as its own QueueSend call would, and a repeat of the batch replays every send', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ kind: fc.constantFrom(...KINDS), again: fc.boolean() }), { minLength: 1, maxLength: 12 }),
        async (picks) => {
          // `again`: the item repeats an earlier item's key (and send) of the same batch.
          const items: QueueSendItem[] = [];
          for (const pick of picks) {
            const earlier = pick.again && items.length ? items[items.length - 1]! : undefined;
            items.push(earlier ?? itemOf(sendOf(pick.kind, newId()), `${newId()}:${newId()}:1`));
          }
          const outcomes = await batch(items);

          // The oracle: the same sends one by one, under fresh keys (each its own enrollment's step).
          const oracle: Outcome[] = [];
          for (const item of items) oracle.push(await single(itemOf(item.send!, `${newId()}:${newId()}:1`)));
          expect(outcomes.map(shape)).toEqual(oracle.map(shape));

          // One key, one send: a repeat inside the batch and a repeat of the batch answer the first.
          const byKey = new Map<string, Outcome>();
          outcomes.forEach((outcome, i) => {
            const first = byKey.get(items[i]!.idempotency_key);
            if (first?.ok) expect(outcome).toEqual(first);
            else byKey.set(items[i]!.idempotency_key, outcome);
          });
          const again = await batch(items);
          again.forEach((outcome, i) => {
            const before = outcomes[i]!;
            if (before.ok) expect(outcome).toEqual(before);
            else expect(shape(outcome)).toEqual(shape(before));
          });
          const ids = [...new Set(outcomes.filter((o): o is Extract<Outcome, { ok: true }> => o.ok).map((o) => o.id))];
          expect(await countRows('sent_emails', 'workspace_id = $1 AND id = ANY($2::uuid[])', [h.workspaceId, ids])).toBe(ids.length);
          expect(await countRows('deliveries', 'workspace_id = $1 AND sent_email_id = ANY($2::uuid[])', [h.workspaceId, ids])).toBe(ids.length);
        },
      ),
      { numRuns: backend.name === 'postgres' ? 25 : 10 },
    );
  });

  test("a flow's sends are listed by ?flow_id=, and only they (issue #35)", async () => {
    const other = { flow_id: newId(), flow_node_id: newId() };
    const mine = await batch(['plain', 'owned'].map((kind) => itemOf(sendOf(kind as Kind, newId()), `${newId()}:${newId()}:1`)));
    const theirs = await batch([itemOf({ ...sendOf('plain', newId()), ...other }, `${newId()}:${newId()}:1`)]);
    const listed = async (flowId: string) =>
      (await h.messaging.service.sentEmails.list(h.workspaceId, { limit: 100, sort: [{ field: 'sent_at', direction: 'desc' }], filters: [{ field: 'flow_id', value: flowId }] })).data
        .map((s) => String(s.id))
        .sort();
    const ids = (outcomes: Outcome[]) => outcomes.filter((o): o is Extract<Outcome, { ok: true }> => o.ok).map((o) => o.id);
    expect(await listed(other.flow_id)).toEqual(ids(theirs).sort());
    expect(ids(mine).every((id) => !ids(theirs).includes(id))).toBe(true);
    expect(ids(theirs)).toHaveLength(1);
  });

  test('the new sends of a batch commit with their delivery rows, key answers and one queued event each', async () => {
    const items = ['plain', 'owned', 'template', 'reply'].map((kind) => itemOf(sendOf(kind as Kind, newId()), `${newId()}:${newId()}:1`));
    const outcomes = await batch(items);
    const ids = outcomes.map((o) => (o.ok ? o.id : 'failed'));
    expect(ids).not.toContain('failed');
    const answered = await h.db.query<{ key: string; response: { steps: { id: string }[] } }>(
      `SELECT key, response FROM idempotency_keys WHERE workspace_id = $1 AND key = ANY($2::text[])`,
      [h.workspaceId, items.map((i) => `flows ${i.idempotency_key}`)],
    );
    expect(new Map(answered.rows.map((r) => [r.key, r.response.steps[0]!.id]))).toEqual(new Map(items.map((item, n) => [`flows ${item.idempotency_key}`, ids[n]!])));
    const { rows } = await h.db.query<{ sent_email_id: string; thread: string[]; verp: boolean }>(
      `SELECT sent_email_id, thread, verp FROM deliveries WHERE workspace_id = $1 AND sent_email_id = ANY($2::uuid[])`,
      [h.workspaceId, ids],
    );
    expect(rows).toHaveLength(4);
    const earlier = await h.messaging.service.sentEmails.get(h.workspaceId, earlierSend);
    expect(rows.find((r) => r.sent_email_id === ids[3])!.thread).toEqual([earlier.message_id]);
    expect(rows.find((r) => r.sent_email_id === ids[0])!.thread).toEqual([]);
    const reply = await h.messaging.service.sentEmails.get(h.workspaceId, ids[3]!);
    expect(reply.subject).toBe('First');
    const owned = await h.messaging.service.sentEmails.get(h.workspaceId, ids[1]!);
    // Written queued (its sent_email.queued event below); the delivery worker may already have
    // tried it against the closed port, so its status now is not asserted.
    expect(owned).toMatchObject({ subject: 'Hello Owen', from_email: 'ana@acme.test', owner_id: h.userId });
    await expectEventually(() => {
      const queued = h.eventsOf(MessagingEvents.SentEmailQueued).filter((e) => ids.includes(String((e.data as { sent_email_id: string }).sent_email_id)));
      expect(queued).toHaveLength(4);
      expect(queued.map((e) => (e.data as { flow?: { enrollment_id: string } }).flow?.enrollment_id).sort()).toEqual(items.map((i) => i.send!.flow_enrollment_id).sort());
    });
  });

  test("each item is queued in a span of its step's trace, and its delivery and queued event continue from that span", async () => {
    const traceId = (n: number) => String(n).padStart(32, 'a');
    const stepSpan = 'b'.repeat(16);
    {
      const items = [1, 2].map((n) => ({ ...itemOf(sendOf('plain', newId()), `${newId()}:${newId()}:1`), trace: { traceparent: `00-${traceId(n)}-${stepSpan}-01` } }));
      const outcomes = await batch(items);
      for (const [n, outcome] of outcomes.entries()) {
        if (!outcome.ok) throw new Error(`item ${n} failed: ${JSON.stringify(outcome)}`);
        const queued = exported.getFinishedSpans().find((span) => span.name === 'queue email' && span.spanContext().traceId === traceId(n + 1));
        expect(queued?.parentSpanContext?.spanId).toBe(stepSpan);
        const continued = `00-${traceId(n + 1)}-${queued!.spanContext().spanId}-01`;
        const { rows } = await h.db.query<{ trace: Record<string, string> }>(`SELECT trace FROM deliveries WHERE workspace_id = $1 AND sent_email_id = $2`, [h.workspaceId, outcome.id]);
        expect(rows[0]!.trace).toEqual({ traceparent: continued });
        await expectEventually(() => expect(traceOf(MessagingEvents.SentEmailQueued, outcome.id)).toBe(continued));
      }
    }
  });

  test('sends delivered together keep their own traces: each email.sent event continues the trace of the step that queued it', async () => {
    const sink = await startSmtpSink();
    const delivering = await h.another({ SMTP_URL: sink.url });
    const deliveringClient = createServiceClient(loadMessaging().crm.messaging.v1.MessagingService, delivering.server.address, { origin: 'flows' });
    try {
      const traceId = (n: number) => String(n).padStart(32, 'c');
      const items = Array.from({ length: 6 }, (_, n) => ({
        ...itemOf(sendOf('plain', newId()), `${newId()}:${newId()}:1`),
        trace: { traceparent: `00-${traceId(n)}-${'d'.repeat(16)}-01` },
      }));
      const { results } = await deliveringClient.call('QueueSends', { origin: 'flows', items });
      const ids = results.map((r) => r.sent!.id);
      await expectEventually(() => expect(ids.filter((id) => traceOf(MessagingEvents.EmailSent, id) === undefined)).toEqual([]), { timeoutMs: 20_000 });
      ids.forEach((id, n) => expect(traceOf(MessagingEvents.EmailSent, id)?.split('-')[1]).toBe(traceId(n)));
    } finally {
      deliveringClient.close();
      // Closed after the deployment that holds its pooled connections (afterAll).
      sinks.push(sink);
    }
  });

  test('a key reused with another send is refused for that item alone; unreadable items fail alone; more than 500 is refused whole', async () => {
    const key = `${newId()}:${newId()}:1`;
    const [first] = await batch([itemOf(sendOf('plain', newId()), key)]);
    expect(first!.ok).toBe(true);
    const other = itemOf(sendOf('owned', newId()), key);
    const fine = itemOf(sendOf('plain', newId()), `${newId()}:${newId()}:1`);
    const outcomes = await batch([
      other,
      fine,
      { ...fine, idempotency_key: 'k'.repeat(256) },
      { idempotency_key: `${newId()}:x:1`, fingerprint: 'f' },
      { ...itemOf({ ...sendOf('plain', newId()), workspace_id: 'not-a-workspace' }, `${newId()}:x:1`) },
    ]);
    expect(outcomes[0]).toMatchObject({ ok: false, code: 'idempotency_key_reused' });
    expect(outcomes[1]).toMatchObject({ ok: true });
    expect(outcomes[2]).toMatchObject({ ok: false, code: 'invalid_request' });
    expect(outcomes[3]).toMatchObject({ ok: false, code: 'invalid_request' });
    expect(outcomes[4]).toMatchObject({ ok: false, code: 'invalid_request' });
    await expect(client.call('QueueSends', { origin: 'flows', items: Array.from({ length: 501 }, () => fine) })).rejects.toMatchObject({ code: 'invalid_request' });
    expect(await batch([])).toEqual([]);
  });

  test('two batches racing with the same keys queue each send once', async () => {
    const items = Array.from({ length: 8 }, () => itemOf(sendOf('plain', newId()), `${newId()}:${newId()}:1`));
    const [a, b] = await Promise.all([batch(items), batch(items)]);
    expect(a!.every((o) => o.ok)).toBe(true);
    expect(b).toEqual(a);
    const ids = a!.map((o) => (o.ok ? o.id : ''));
    expect(await countRows('sent_emails', 'workspace_id = $1 AND flow_enrollment_id = ANY($2::uuid[])', [h.workspaceId, items.map((i) => i.send!.flow_enrollment_id)])).toBe(8);
    expect(new Set(ids).size).toBe(8);
  });

  test('over the hourly quota, the items past it are refused with the retry time and take no place', async () => {
    const limited = await h.another({ SEND_QUOTA_PER_HOUR: '3', SMTP_URL: 'smtp://127.0.0.1:1' });
    const limitedClient = createServiceClient(loadMessaging().crm.messaging.v1.MessagingService, limited.server.address, { origin: 'flows' });
    try {
      const items = Array.from({ length: 5 }, () => itemOf(sendOf('plain', newId()), `${newId()}:${newId()}:1`));
      // One unknown contact first: a failed item takes no place.
      items.unshift(itemOf(sendOf('unknownContact', newId()), `${newId()}:${newId()}:1`));
      const { results } = await limitedClient.call('QueueSends', { origin: 'flows', items });
      const refused = results.filter((r) => r.error).map((r) => errorFromPayload(r.error!)!);
      expect(results.filter((r) => r.sent)).toHaveLength(3);
      expect(refused.map((e) => e.code).sort()).toEqual(['send_quota_exhausted', 'send_quota_exhausted', 'validation_failed']);
      for (const e of refused.filter((e) => e.code === 'send_quota_exhausted')) expect((e.details as { retry_after_seconds: number }).retry_after_seconds).toBeGreaterThan(0);
    } finally {
      limitedClient.close();
    }
  });
});
