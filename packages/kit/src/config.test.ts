import fc from 'fast-check';
import { ConfigError, readConfig, setting } from './config';

const schema = {
  PORT: setting.port(8080),
  HOST: setting.string('127.0.0.1'),
  SECRET: setting.secret(),
  DATABASE_URL: setting.optionalUrl('postgres', 'postgresql'),
  PEOPLE_ADDR: setting.address('127.0.0.1:50052'),
  POOL: setting.int(10, 1, 100),
  LEVEL: setting.oneOf(['info', 'debug'], 'info'),
};

describe('readConfig', () => {
  test('typed values, with defaults for what is absent or empty', () => {
    expect(readConfig(schema, { SECRET: 's', PORT: '', DATABASE_URL: 'postgres://u:p@db/crm', POOL: '7' })).toEqual({
      PORT: 8080,
      HOST: '127.0.0.1',
      SECRET: 's',
      DATABASE_URL: 'postgres://u:p@db/crm',
      PEOPLE_ADDR: '127.0.0.1:50052',
      POOL: 7,
      LEVEL: 'info',
    });
  });

  test('one error lists every missing or malformed variable, without echoing secrets or URLs', () => {
    let error: unknown;
    try {
      readConfig(schema, { PORT: '80000', DATABASE_URL: 'mysql://root:hunter2@db', PEOPLE_ADDR: 'people', POOL: '0', LEVEL: 'loud' });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as Error).message;
    expect(message).toMatch(/6 problems/);
    for (const name of ['PORT', 'SECRET', 'DATABASE_URL', 'PEOPLE_ADDR', 'POOL', 'LEVEL']) expect(message).toContain(name);
    expect(message).not.toContain('hunter2');
  });
});

describe('setting.optionalEmail', () => {
  const read = (raw: string | undefined) => readConfig({ MAIL_FROM: setting.optionalEmail() }, { MAIL_FROM: raw }).MAIL_FROM;

  test('an address by the API\'s rule, absent when unset', () => {
    expect(read(undefined)).toBeUndefined();
    expect(read('outreach@mail.example.com')).toBe('outreach@mail.example.com');
    expect(() => read(`${'a'.repeat(65)}@example.com`)).toThrow(
      'MAIL_FROM is not an address a mail server takes: local part must be at most 64 octets (UTF-8 bytes); it has 65',
    );
    expect(() => read('Outreach <outreach@example.com>')).toThrow('MAIL_FROM is not an address a mail server takes: must be an email address');
  });
});

describe('setting.optionalTime', () => {
  const read = (raw: string | undefined) => readConfig({ AT: setting.optionalTime() }, { AT: raw }).AT;

  test('a date and time with its offset, absent when unset', () => {
    expect(read(undefined)).toBeUndefined();
    expect(read('')).toBeUndefined();
    expect(read('2026-11-27T06:00:00Z')).toEqual(new Date('2026-11-27T06:00:00.000Z'));
    expect(read('2026-11-27T07:30:00.25+01:30')).toEqual(new Date('2026-11-27T06:00:00.250Z'));
    expect(read('2024-02-29T23:00:00-05:00')).toEqual(new Date('2024-03-01T04:00:00.000Z'));
  });

  test.each([
    ['2026-11-27', 'no time'],
    ['2026-11-27T06:00:00', 'no offset: which zone is meant?'],
    ['2026-02-31T06:00:00Z', 'no such day (Date would take it as 3 March)'],
    ['2026-11-27T24:00:00Z', 'no such hour'],
    ['2026-11-27T06:60:00Z', 'no such minute'],
    ['1795755386', 'seconds since 1970'],
    ['yesterday', 'words'],
  ])('%s is refused (%s), naming the variable and the form it needs', (raw) => {
    expect(() => read(raw)).toThrow(/AT must be a date and time with its offset, such as 2026-11-27T06:00:00Z/);
  });

  test('any text is read or refused with the setting error, never anything else; what is read is the instant written', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.date({ noInvalidDate: true }).map((d) => d.toISOString()), fc.constantFrom('2026-13-01T00:00:00Z', '0000-01-01T00:00:00Z')), (raw) => {
        let value: Date | undefined;
        try {
          value = read(raw);
        } catch (error) {
          expect(error).toBeInstanceOf(ConfigError);
          return;
        }
        if (raw === '') return expect(value).toBeUndefined();
        expect(value!.getTime()).toBe(Date.parse(raw));
        expect(raw).toMatch(/^\d{4}-\d{2}-\d{2}T/);
      }),
      { numRuns: 2_000 },
    );
  });
});
