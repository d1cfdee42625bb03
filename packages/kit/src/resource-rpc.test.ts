import { baseFields, defineResource } from './resource';
import { createAnswerToMessage, messageToCreateAnswer, messageToRecord, recordToMessage } from './resource-rpc';

/** A resource whose create answers a value shown once, like a webhook endpoint's secret. */
const hooks = defineResource({
  name: 'hooks',
  singular: 'hook',
  table: 'hooks',
  timeField: 'created_at',
  maxLimit: 100,
  customFields: false,
  fields: {
    id: baseFields.id,
    svc_uid: baseFields.svc_uid,
    url: { type: 'url', required: true, nullable: false },
    created_at: { ...baseFields.created_at, sort: true },
    updated_at: baseFields.updated_at,
  },
  createAnswerFields: { secret: { type: 'string', readOnly: true, nullable: false } },
});

const record = { id: '0195a7c4-5b1e-7c3a-9d2f-6e8b1a2c3d4e', svc_uid: null, url: 'https://example.com/h', created_at: '2026-03-02T09:30:00.000Z', updated_at: '2026-03-02T09:30:00.000Z' };

describe('create answer fields', () => {
  test('travel in their own proto field in the create answer, and are no field of the record', () => {
    const message = createAnswerToMessage(hooks, { ...record, secret: 'whsec_abc' });
    expect(message.secret).toBe('whsec_abc');
    expect(message.custom_fields).toEqual({ fields: {} });
    expect(messageToCreateAnswer(hooks, message)).toEqual({ ...record, secret: 'whsec_abc' });
    // A read's message carries none, and the record has no such property (not even null).
    const read = messageToRecord(hooks, recordToMessage(hooks, record));
    expect(read).toEqual(record);
    expect(read).not.toHaveProperty('secret');
    expect(messageToCreateAnswer(hooks, recordToMessage(hooks, record))).not.toHaveProperty('secret');
  });

  test('are read-only scalars, named like no declared field', () => {
    const spec = (createAnswerFields: Record<string, object>) => () => defineResource({ ...hooks, createAnswerFields } as never);
    expect(spec({ url: { type: 'string', readOnly: true } })).toThrow(/no declared field/);
    expect(spec({ custom_fields: { type: 'string', readOnly: true } })).toThrow(/no declared field/);
    expect(spec({ secret: { type: 'string' } })).toThrow(/read-only/);
    expect(spec({ secret: { type: 'json', readOnly: true } })).toThrow(/scalar/);
    expect(spec({ secret: { type: 'string', readOnly: true } })).not.toThrow();
  });
});
