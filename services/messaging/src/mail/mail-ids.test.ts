import fc from 'fast-check';
import { isMailDomain, messageIdFor, sentEmailIdFromMessageId, sentEmailIdFromVerp, verpAddressFor } from './mail-ids';

const ID = '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b';

describe('mail ids', () => {
  it('round-trips a sent email id through its Message-ID and VERP address', () => {
    fc.assert(
      fc.property(fc.uuid(), fc.domain(), (id, domain) => {
        expect(sentEmailIdFromMessageId(messageIdFor(id, domain), domain)).toBe(id.toLowerCase());
        expect(sentEmailIdFromVerp(verpAddressFor(id, domain), domain)).toBe(id.toLowerCase());
      }),
    );
  });

  it('formats the contract strings', () => {
    expect(messageIdFor(ID, 'Mail.Example.com')).toBe(`<${ID}@mail.example.com>`);
    expect(verpAddressFor(ID, 'mail.example.com')).toBe(`bounces+${ID}@mail.example.com`);
  });

  it('accepts case folding and angle brackets, and refuses anyone else’s ids', () => {
    expect(sentEmailIdFromMessageId(`${ID.toUpperCase()}@MAIL.EXAMPLE.COM`, 'mail.example.com')).toBe(ID);
    expect(sentEmailIdFromVerp(`<BOUNCES+${ID}@Mail.Example.Com>`, 'mail.example.com')).toBe(ID);
    expect(sentEmailIdFromMessageId(`<${ID}@mail.example.org>`, 'mail.example.com')).toBeUndefined();
    expect(sentEmailIdFromMessageId('<CAH7r2kVf@mail.gmail.com>', 'mail.gmail.com')).toBeUndefined();
    expect(sentEmailIdFromVerp(`${ID}@mail.example.com`, 'mail.example.com')).toBeUndefined();
    expect(sentEmailIdFromVerp(`bounces+${ID}x@mail.example.com`, 'mail.example.com')).toBeUndefined();
    expect(sentEmailIdFromVerp(`bounces+${ID}@sub.mail.example.com`, 'mail.example.com')).toBeUndefined();
  });

  it('knows a host name', () => {
    expect(isMailDomain('mail.example.com')).toBe(true);
    expect(isMailDomain('localhost')).toBe(true);
    for (const bad of ['', 'a b', 'mail.example.com>', '-a.com', 'a..com', `${'a'.repeat(64)}.com`]) expect(isMailDomain(bad)).toBe(false);
  });
});
