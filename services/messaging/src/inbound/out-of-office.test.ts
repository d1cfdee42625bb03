import { dateHeaderOf, readReturnDate, utcOffsetOfDate } from './out-of-office';

/**
 * Out-of-office texts as people and their mail systems write them (Outlook's and Gmail's
 * automatic replies, hand-written ones), in the four languages the reader knows. Unless a test
 * says otherwise the reply is dated Thursday 2 July 2026, 10:00 in Paris (+02:00).
 */
const PARIS = { reference: new Date('2026-07-02T08:00:00.000Z'), utcOffsetMinutes: 120 };
const read = (text: string, options = PARIS) => readReturnDate(text, options);
const back = (text: string, options = PARIS) => read(text, options)?.returnsOn;

describe('the day an out-of-office reply says its sender is back', () => {
  describe('English', () => {
    test.each([
      [
        // Outlook's default wording, with a weekday and a month name.
        'Thank you for your email. I am out of the office until Friday, July 10, with limited access to email. I will respond as soon as possible upon my return.',
        '2026-07-11',
        'until Friday, July 10',
      ],
      ["Hi, I'm on vacation and will be back on Monday 13 July. For urgent matters, please contact support@example.com.", '2026-07-13', 'back on Monday 13 July'],
      ['Please note I will be out of the office from 29/06/2026 returning 14/07/2026. Kind regards, Ana', '2026-07-14', 'returning 14 July 2026'],
      ["I'm away from 1 July to 15 July and will reply when I'm back.", '2026-07-16', 'from 1 July to 15 July'],
      ['I am on parental leave and will return to the office on 3 August 2026. Until then, please write to team@example.com.', '2026-08-03', 'return to the office on 3 August 2026'],
    ])('%s', (text, returnsOn, phrase) => {
      expect(read(text)).toEqual({ returnsOn, phrase });
    });
  });

  describe('French', () => {
    test.each([
      ["Bonjour, je suis absent du bureau jusqu'au 17 juillet inclus. En cas d'urgence, contactez Marie Dubois.", '2026-07-18', "jusqu'au 17 juillet"],
      ['Je suis en congés jusqu’au mercredi 15/07 inclus et n’aurai pas accès à mes e-mails.', '2026-07-16', 'jusqu’au mercredi 15/07'],
      ['Merci pour votre message. Je serai de retour le lundi 20 juillet et vous répondrai dès que possible.', '2026-07-20', 'de retour le lundi 20 juillet'],
      ['Absente du 1er au 15 juillet, je traiterai votre message à mon retour.', '2026-07-16', '1er au 15 juillet'],
    ])('%s', (text, returnsOn, phrase) => {
      expect(read(text)).toEqual({ returnsOn, phrase });
    });
  });

  describe('German', () => {
    test.each([
      ['Vielen Dank für Ihre Nachricht. Ich bin bis einschließlich 17. Juli nicht im Büro. In dringenden Fällen wenden Sie sich bitte an Herrn Weber.', '2026-07-18', 'bis einschließlich 17. Juli'],
      // Day and month without a year, as German writes them in a sentence.
      ['Ich bin vom 29.06. bis 10.07. im Urlaub und habe keinen Zugriff auf meine E-Mails.', '2026-07-11', '29. Juni bis 10. Juli'],
      ['Guten Tag, ich bin am Montag, 13. Juli wieder im Büro.', '2026-07-13', 'am Montag, 13. Juli wieder'],
      ['Ich bin bis zum 14.07.2026 im Urlaub. Ihre Nachricht wird nicht weitergeleitet.', '2026-07-15', 'bis zum 14.07.2026'],
    ])('%s', (text, returnsOn, phrase) => {
      expect(read(text)).toEqual({ returnsOn, phrase });
    });
  });

  describe('Spanish', () => {
    test.each([
      ['Gracias por su mensaje. Estaré fuera de la oficina hasta el 17 de julio. Para asuntos urgentes, escriba a soporte@example.com.', '2026-07-18', 'hasta el 17 de julio'],
      ['Estoy de vacaciones del 1 al 15 de julio, sin acceso al correo.', '2026-07-16', '1 de julio al 15 de julio'],
      ['Me encuentro fuera de la oficina. Regreso el 14/07/2026.', '2026-07-14', 'Regreso el 14/07/2026'],
      ['Hola, estaré de vuelta en la oficina el lunes 20 de julio.', '2026-07-20', 'de vuelta en la oficina el lunes 20 de julio'],
    ])('%s', (text, returnsOn, phrase) => {
      expect(read(text)).toEqual({ returnsOn, phrase });
    });
  });

  describe('replies that name no return date', () => {
    test.each([
      'I am currently out of the office with no access to email. I will reply when I return.',
      'Je suis actuellement absente. Je traiterai votre message à mon retour.',
      'Ich bin derzeit nicht im Büro. Ihre Nachricht wird nicht weitergeleitet.',
      'Estoy fuera de la oficina. Responderé a su correo lo antes posible.',
      // A date that bounds something else is not a return.
      'I am out of office. Please send the signed contract before 10 July to my colleague.',
      'Je suis absent. Merci de renvoyer le devis avant le 10 juillet à ma collègue.',
      // A time alone, a month alone: no day.
      'Back at 2pm.',
      'Ich bin im August im Urlaub.',
    ])('%s', (text) => {
      expect(read(text)).toBeUndefined();
    });
  });

  describe('dates in the past or too far away are not believed', () => {
    test.each([
      // An auto-reply nobody updated since June: "June 30" is last year's, or next year's: neither.
      ['I was out of the office until June 30.', undefined],
      ['Ich bin bis zum 30.06.2026 im Urlaub.', undefined],
      ['De retour le 25/06/2026.', undefined],
      ['Regreso el 30 de junio.', undefined],
      // More than 90 days after the reply.
      ['I am on sabbatical until 1 January 2027.', undefined],
      ['Je suis en congé maternité jusqu’au 15 décembre.', undefined],
      // The reply's own day is not the past: back today.
      ["I'm back today, 2 July, and catching up.", '2026-07-02'],
    ])('%s', (text, expected) => {
      expect(back(text)).toBe(expected);
    });

    test('90 days is the default limit; a caller may set another', () => {
      expect(back('Back on 30 September.')).toBe('2026-09-30');
      expect(back('Back on 1 October.')).toBeUndefined();
      expect(back('Back on 1 October.', { ...PARIS, maxDays: 120 } as typeof PARIS)).toBe('2026-10-01');
    });
  });

  describe('ambiguous replies: the latest date that reads as a return', () => {
    test.each([
      ['I am on annual leave from 1 July until 15 July inclusive and will be back in the office on Monday 20 July.', '2026-07-20'],
      ["Je suis absent du bureau jusqu'au 17 juillet inclus. Je serai de retour le lundi 20 juillet.", '2026-07-20'],
      ['Ich bin bis einschließlich 17. Juli nicht im Büro. Ab dem 20. Juli bin ich wieder erreichbar.', '2026-07-20'],
      ['Estaré fuera de la oficina hasta el 17 de julio. Estaré de vuelta el 20 de julio.', '2026-07-20'],
      // The return follows the absence whatever the order of the sentences.
      ['Back on Monday 20 July. I am away until 17 July.', '2026-07-20'],
      // A deadline and a colleague's dates do not count; the return does.
      ['Until 10 July please contact Bob, who is in the office on 6 July. I return on 8 July; invoices are due before 31 July.', '2026-07-11'],
      // "back after" is an "until": back the day after.
      ['I will be back after 14 July.', '2026-07-15'],
    ])('%s', (text, expected) => {
      expect(back(text)).toBe(expected);
    });

    test('a weekday alone is the next one after the reply', () => {
      // 2 July 2026 is a Thursday.
      expect(back('Back on Monday.')).toBe('2026-07-06');
      expect(back('Je suis absent, de retour lundi.')).toBe('2026-07-06');
      expect(back('Bis Freitag nicht im Büro.')).toBe('2026-07-04');
      expect(back('Estaré fuera hasta el viernes.')).toBe('2026-07-04');
    });

    test('relative dates count from the reply, not from when it is read', () => {
      expect(back('I am out this week; back next Monday.')).toBe('2026-07-06');
      expect(back('Back in two weeks.')).toBe('2026-07-16');
      expect(back('Back tomorrow.', { reference: new Date('2026-07-02T23:30:00.000Z'), utcOffsetMinutes: 120 })).toBe('2026-07-04');
    });

    test('07/08 is 7 August, except in English from a sender in the Americas, where it is July 8', () => {
      expect(back('Returning 07/08.')).toBe('2026-08-07');
      expect(back('De retour le 07/08.')).toBe('2026-08-07');
      const newYork = { reference: new Date('2026-07-02T14:00:00.000Z'), utcOffsetMinutes: -240 };
      expect(back('Returning 07/08.', newYork)).toBe('2026-07-08');
      expect(back('Returning 07/08/2026.', newYork)).toBe('2026-07-08');
      // 15/07 has one reading wherever it was written.
      expect(back('Returning 15/07.', newYork)).toBe('2026-07-15');
    });

    test('a year left out is the first that puts the date on or after the reply', () => {
      const december = { reference: new Date('2026-12-22T09:00:00.000Z'), utcOffsetMinutes: 60 };
      expect(back('Ich bin bis zum 6. Januar im Urlaub.', december)).toBe('2027-01-07');
      expect(back('Out until 5 January.', december)).toBe('2027-01-06');
    });

    test("the calendar is the reply's own: 23:30 in New York is already the next day in Paris", () => {
      const lateInNewYork = { reference: new Date('2026-07-03T03:30:00.000Z'), utcOffsetMinutes: -240 };
      // It is still 2 July where the reply was written: "back on 2 July" is today, not the past.
      expect(back('Back on July 2, catching up.', lateInNewYork)).toBe('2026-07-02');
    });
  });
});

describe('the Date header', () => {
  test.each([
    ['Tue, 4 Mar 2025 02:00:31 -0800', -480],
    ['Thu, 02 Jul 2026 10:00:00 +0200', 120],
    ['Thu, 2 Jul 2026 10:00:00 +0530 (IST)', 330],
    ['Thu, 2 Jul 2026 08:00:00 GMT', 0],
    ['Thu, 2 Jul 2026 04:00:00 EDT', -240],
    ['Thu, 2 Jul 2026 08:00:00', 0],
    ['nonsense', 0],
  ])('%s is at UTC%d min', (value, offset) => {
    expect(utcOffsetOfDate(value)).toBe(offset);
  });

  test('is read from the header block only, unfolded', () => {
    const raw = Buffer.from('From: a@example.com\r\nDate: Thu, 2 Jul 2026\r\n 10:00:00 +0200\r\nSubject: x\r\n\r\nDate: not this one\r\n');
    expect(dateHeaderOf(raw)).toBe('Thu, 2 Jul 2026 10:00:00 +0200');
    expect(dateHeaderOf(Buffer.from('From: a@example.com\r\n\r\nDate: Thu, 2 Jul 2026 10:00:00 +0200\r\n'))).toBeUndefined();
  });
});
