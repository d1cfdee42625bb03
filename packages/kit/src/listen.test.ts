import { addressTarget, listenErrorCode, listenProblem } from './listen';

describe('a port that cannot be listened on, as its variable\'s problem', () => {
  test('names the variable and its value, or says it was the default', () => {
    expect(listenProblem({ variable: 'PORT', value: '8080', isDefault: false, host: '127.0.0.1', port: 8080 }, 'EADDRINUSE')).toBe(
      'PORT=8080: 127.0.0.1:8080 is already in use (EADDRINUSE)',
    );
    expect(listenProblem(addressTarget('GRPC_ADDR', '127.0.0.1:50052', true), 'EADDRINUSE')).toBe(
      'GRPC_ADDR (not set, default 127.0.0.1:50052): 127.0.0.1:50052 is already in use (EADDRINUSE)',
    );
    expect(listenProblem(addressTarget('INBOUND_SMTP_ADDR', '[::1]:25'), 'EACCES')).toBe('INBOUND_SMTP_ADDR=[::1]:25: cannot listen on [::1]:25 (EACCES)');
  });

  test('knows a failed listen from Node and from gRPC, and nothing else', () => {
    const node = Object.assign(new Error('listen EADDRINUSE: address already in use 127.0.0.1:8080'), { code: 'EADDRINUSE', syscall: 'listen' });
    expect(listenErrorCode(node)).toBe('EADDRINUSE');
    expect(listenErrorCode(new Error('No address added out of total 1 resolved errors: [listen EADDRINUSE: address already in use 127.0.0.1:50051]'))).toBe('EADDRINUSE');
    // A database that cannot be reached, or a folder that cannot be written, is not a port problem.
    expect(listenErrorCode(Object.assign(new Error('getaddrinfo ENOTFOUND db'), { code: 'ENOTFOUND', syscall: 'getaddrinfo' }))).toBeUndefined();
    expect(listenErrorCode(Object.assign(new Error('EACCES: permission denied, mkdir'), { code: 'EACCES', syscall: 'mkdir' }))).toBeUndefined();
  });
});
