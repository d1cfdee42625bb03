import { failureReason } from './integration-check';

const PASSWORD = 's3cr3t-p4ss';
const b64 = (text: string) => Buffer.from(text).toString('base64');

describe('failureReason', () => {
  test('takes the secret out in every form AUTH sends it, should a server echo it', () => {
    const echoed = new Error(`535 5.7.8 bad credentials for ${PASSWORD} (${b64(PASSWORD)}, ${b64(`\u0000ana@acme.test\u0000${PASSWORD}`)})`);
    const reason = failureReason(echoed, { username: 'ana@acme.test' }, PASSWORD);
    expect(reason).toBe('535 5.7.8 bad credentials for [secret] ([secret], [secret])');
  });

  test('keeps the reason on one bounded line', () => {
    const reason = failureReason(new Error(`421 4.7.0 try again\r\n\tlater ${'x'.repeat(1_000)}`), {}, PASSWORD);
    expect(reason).toMatch(/^421 4\.7\.0 try again later x+$/);
    expect(reason).toHaveLength(500);
  });

  test("gives OpenSSL's reason without its source lines, and Node's message for anything else", () => {
    const openssl = new Error('405D85E4727F0000:error:0A00010B:SSL routines:tls_validate_record_header:wrong version number:../deps/openssl/ssl/record.c:77:');
    expect(failureReason(openssl, {}, PASSWORD)).toBe('TLS failed: wrong version number');
    expect(failureReason('socket hang up', {}, PASSWORD)).toBe('socket hang up');
    expect(failureReason({ message: 'getaddrinfo ENOTFOUND smtp.example.invalid' }, {}, PASSWORD)).toBe('getaddrinfo ENOTFOUND smtp.example.invalid');
  });
});
