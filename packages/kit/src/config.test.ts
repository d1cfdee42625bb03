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
