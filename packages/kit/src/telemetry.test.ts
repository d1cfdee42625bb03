import { DEFAULT_METRICS_PORT, metricsEndpoint } from './telemetry';

describe('the /metrics endpoint settings', () => {
  test('9464 on loopback unless told; any free port with 0; none with off', () => {
    expect(metricsEndpoint({})).toEqual({ host: '127.0.0.1', port: DEFAULT_METRICS_PORT });
    expect(metricsEndpoint({ METRICS_PORT: '9100', METRICS_HOST: '0.0.0.0' })).toEqual({ host: '0.0.0.0', port: 9100 });
    expect(metricsEndpoint({ METRICS_PORT: '0' })).toEqual({ host: '127.0.0.1', port: 0 });
    expect(metricsEndpoint({ METRICS_PORT: 'off' })).toBeUndefined();
  });

  test('anything else is refused at start, naming the variable', () => {
    for (const bad of ['65536', '-1', 'on', '80a', '1e3']) expect(() => metricsEndpoint({ METRICS_PORT: bad })).toThrow(/METRICS_PORT/);
  });
});
