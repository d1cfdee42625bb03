import fc from 'fast-check';
import { redactSmtpSecret } from './smtp-secret';

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');

describe('redactSmtpSecret', () => {
  it('takes out the password in clear, in AUTH LOGIN base64 and in the AUTH PLAIN token', () => {
    const text = `535 bad: hunter2-pass ${b64('hunter2-pass')} ${b64('\u0000ada\u0000hunter2-pass')}`;
    expect(redactSmtpSecret(text, 'ada', 'hunter2-pass')).toBe('535 bad: [secret] [secret] [secret]');
  });

  it('leaves the text alone without a password', () => {
    expect(redactSmtpSecret('535 auth failed', 'ada', '')).toBe('535 auth failed');
    expect(redactSmtpSecret('535 auth failed', undefined, undefined)).toBe('535 auth failed');
  });

  it('never leaves any form of any password in the text', () => {
    // A password sharing no character with the marker cannot reappear across one.
    const password = fc.string({ minLength: 1, maxLength: 40 }).filter((p) => ![...p].some((c) => '[secret]'.includes(c)));
    fc.assert(
      fc.property(password, fc.string({ maxLength: 20 }), fc.string(), fc.string(), (secret, user, before, after) => {
        const text = `${before}${secret}${after} AUTH ${b64(secret)} ${b64(`\u0000${user}\u0000${secret}`)}`;
        const out = redactSmtpSecret(text, user, secret);
        expect(out).not.toContain(secret);
      }),
    );
  });
});
