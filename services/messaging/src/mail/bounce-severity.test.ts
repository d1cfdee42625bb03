import { dsnSeverity, enhancedStatusIn, smtpRefusal } from './bounce-severity';

describe('bounce severity: an RFC 3464 report', () => {
  it.each([
    // [Status, Diagnostic-Code, severity]
    ['5.1.1', 'smtp; 550 5.1.1 <bob@example.org>: Recipient address rejected', 'hard'],
    ['5.1.10', undefined, 'hard'],
    ['5.7.1', undefined, 'hard'],
    ['4.2.2', 'smtp; 552 4.2.2 mailbox full', 'soft'], // the Status wins over the reply code
    ['4.4.7', undefined, 'soft'], // the sender gave up on a transient failure
    [undefined, '550 user unknown', 'hard'], // no Status: the reply code decides
    [undefined, '  554 rejected', 'hard'],
    [undefined, '452 too many recipients', 'soft'],
    [undefined, 'mailbox unavailable', 'soft'], // no evidence: soft, a hard bounce suppresses for good
    [undefined, undefined, 'soft'],
    ['2.0.0', undefined, 'soft'],
  ] as const)('Status %s, Diagnostic-Code %s → %s', (status, diagnosticCode, severity) => {
    expect(dsnSeverity({ ...(status ? { status } : {}), ...(diagnosticCode ? { diagnosticCode } : {}) })).toBe(severity);
  });
});

describe('bounce severity: an SMTP reply to our own delivery', () => {
  it.each([
    // [reply code, command, reply text, verdict, recorded status]
    [550, 'RCPT TO', '550 5.1.1 <bob@example.org>: user unknown', 'hard', '5.1.1'],
    [550, 'RCPT TO', '550 no such user', 'hard', '550'],
    [553, 'RCPT TO', '553 5.1.3 bad address syntax', 'hard', '5.1.3'],
    [554, 'DATA', '554 5.7.1 message rejected as spam', 'soft', '5.7.1'], // the message, not the address
    [552, 'DATA', '552 5.3.4 message too big', 'soft', '5.3.4'],
    [550, 'MAIL FROM', '550 5.7.1 sender not allowed', 'soft', '5.7.1'],
    [535, 'AUTH PLAIN', '535 5.7.8 authentication failed', 'retry', '5.7.8'], // our credentials, not the message
    [554, 'CONN', '554 5.7.1 no service for you', 'retry', '5.7.1'], // the greeting: the server refused us
    [550, undefined, '550 rejected', 'retry', '550'], // no transaction command to blame the message on
    [550, 'RCPT TO', '550 4.2.1 try later', 'hard', '4.2.1'], // the reply code decides, the text is recorded
    [450, 'RCPT TO', '450 4.2.1 mailbox busy', 'retry', '4.2.1'],
    [451, 'DATA', '451 4.3.0 local error', 'retry', '4.3.0'],
    [421, 'CONN', '421 service not available', 'retry', '421'],
    [undefined, 'CONN', 'connect ECONNREFUSED 127.0.0.1:2525', 'retry', undefined], // no reply at all
  ] as const)('%s at %s (%s) → %s', (code, command, text, verdict, statusCode) => {
    expect(smtpRefusal({ ...(code ? { code } : {}), ...(command ? { command } : {}), text })).toEqual({ verdict, ...(statusCode ? { statusCode } : {}) });
  });

  it('finds the enhanced status code in a reply or Diagnostic-Code text', () => {
    expect(enhancedStatusIn('550 5.1.1 <a@b>: Recipient address rejected')).toBe('5.1.1');
    expect(enhancedStatusIn('smtp; 554 5.7.1 spam')).toBe('5.7.1');
    expect(enhancedStatusIn('550 user unknown')).toBeUndefined();
    expect(enhancedStatusIn(undefined)).toBeUndefined();
  });
});
