import fc from 'fast-check';
import { createTemplateRenderer, SAMPLE_VARIABLES, TemplateError, type TemplateRenderer } from './template-renderer';

const escapeHtml = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&#34;').replace(/'/g, '&#39;');

const failure = async (promise: Promise<unknown>): Promise<TemplateError> => {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(TemplateError);
  return error as TemplateError;
};

describe('template renderer', () => {
  let renderer: TemplateRenderer;
  beforeAll(() => {
    renderer = createTemplateRenderer();
  });
  afterAll(() => renderer.close());

  it('renders contact fields, filters, defaults and sender.*, and derives the text part', async () => {
    const result = await renderer.render(
      {
        subject: 'Quick question, {{ first_name | default: "there" }}',
        body: '<p>Hi {{ first_name | capitalize }} at {{ company_name | upcase }},</p><p><a href="https://example.com/demo">Book a demo</a></p><p>{{ sender.first_name }}</p><img src="https://example.com/logo.png" alt="logo">',
      },
      { first_name: 'bob', company_name: 'Acme', sender: { first_name: 'Sam' } },
    );
    expect(result).toEqual({
      subject: 'Quick question, bob',
      html: '<p>Hi Bob at ACME,</p><p><a href="https://example.com/demo">Book a demo</a></p><p>Sam</p><img src="https://example.com/logo.png" alt="logo">',
      text: 'Hi Bob at ACME,\n\nBook a demo [https://example.com/demo]\n\nSam',
    });
  });

  it('renders missing variables as empty (or their default), never as {{...}}', async () => {
    const result = await renderer.render(
      { subject: 'Hi {{ first_name | default: "there" }}{{ nope }}', body: '<p>[{{ missing }}][{{ missing.deeper.still }}][{{ sender.name }}]</p>', body_text: '{{ custom_fields.plan }}.' },
      {},
    );
    expect(result).toEqual({ subject: 'Hi there', html: '<p>[][][]</p>', text: '.' });
  });

  it('uses body_text when given, and derives the text when it is empty or null', async () => {
    const body = '<p>Hello {{ first_name }}</p>';
    expect((await renderer.render({ subject: 's', body, body_text: 'Plain {{ first_name }}' }, { first_name: 'Ann' })).text).toBe('Plain Ann');
    expect((await renderer.render({ subject: 's', body, body_text: '' }, { first_name: 'Ann' })).text).toBe('Hello Ann');
    expect((await renderer.render({ subject: 's', body, body_text: null }, { first_name: 'Ann' })).text).toBe('Hello Ann');
  });

  it('escapes contact values in the HTML body only, without double escaping "escape"', async () => {
    const first_name = '<script>alert("x")</script> & co';
    const result = await renderer.render(
      { subject: 'For {{ first_name }}', body: '<p title="{{ first_name }}">{{ first_name }}|{{ first_name | escape }}|{{ first_name | append: "!" }}</p>', body_text: 'Dear {{ first_name }}' },
      { first_name },
    );
    const escaped = escapeHtml(first_name);
    expect(result.html).toBe(`<p title="${escaped}">${escaped}|${escaped}|${escaped}!</p>`);
    expect(result.subject).toBe(`For ${first_name}`);
    expect(result.text).toBe(`Dear ${first_name}`);
  });

  it('offers no way to print a value unescaped into the HTML', async () => {
    const error = await failure(renderer.render({ subject: 's', body: '<p>{{ first_name | raw }}</p>' }, { first_name: '<b>' }));
    expect(error).toMatchObject({ field: 'body', reason: 'syntax', line: 1, col: 4 });
  });

  it('never lets an arbitrary contact value break out of the HTML escaping', async () => {
    const body = '<p class="greeting" title="{{ first_name }}">Hi {{ first_name }}, {{ last_name | default: first_name }}</p>';
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: fc.constantFrom('<', '>', '&', '"', "'", '/', 'a', ' ', '=', 'é', '{', '}', '%') }), fc.string({ unit: 'grapheme' }), async (a, b) => {
        const { html } = await renderer.render({ subject: 's', body }, { first_name: a, last_name: b });
        const tail = b === '' ? escapeHtml(a) : escapeHtml(b);
        expect(html).toBe(`<p class="greeting" title="${escapeHtml(a)}">Hi ${escapeHtml(a)}, ${tail}</p>`);
        expect(html.match(/</g)).toHaveLength(2);
      }),
      { numRuns: 200 },
    );
  });

  it('refuses file access: include, render and layout are syntax errors naming the field and position', async () => {
    for (const tag of ['{% include "secrets.txt" %}', '{% render "/etc/passwd" %}', '{% layout "base" %}']) {
      const error = await failure(renderer.validate({ subject: 'ok', body: `<p>hi</p>\n  ${tag}` }));
      expect(error).toMatchObject({ field: 'body', reason: 'syntax', line: 2, col: 3 });
    }
  });

  it('hides properties that are not the value’s own', async () => {
    const result = await renderer.render(
      { subject: '[{{ constructor }}][{{ first_name.constructor }}][{{ __proto__ }}][{{ sender.toString }}][{{ first_name.size }}]', body: 'x' },
      { first_name: 'Bob', sender: {} },
    );
    expect(result.subject).toBe('[][][][][3]');
  });

  it('reports an unknown filter and bad syntax as syntax errors of the right field with line and column', async () => {
    expect(await failure(renderer.validate({ subject: 'Hi {{ first_name | shout }}', body: 'x' }))).toMatchObject({
      field: 'subject',
      reason: 'syntax',
      line: 1,
      col: 4,
    });
    expect(await failure(renderer.validate({ subject: 's', body: 'x', body_text: 'a\nb\n{% if first_name %}unclosed' }))).toMatchObject({
      field: 'body_text',
      reason: 'syntax',
      line: 3,
    });
    expect(await failure(renderer.validate({ subject: 's', body: '{{ first_name ' }))).toMatchObject({ field: 'body', reason: 'syntax' });
  });

  it('refuses a template too long to parse before it reaches a worker', async () => {
    const error = await failure(renderer.validate({ subject: 's', body: 'x'.repeat(256 * 1024 + 1) }));
    expect(error).toMatchObject({ field: 'body', reason: 'syntax' });
    expect(await failure(renderer.validate({ subject: 42 as unknown as string, body: 'x' }))).toMatchObject({ field: 'subject', reason: 'syntax' });
  });

  it('stops output past the size limit as output_too_large', async () => {
    const error = await failure(renderer.validate({ subject: 's', body: `{% for i in (1..1000) %}${'0123456789abcdef'.repeat(64)}{% endfor %}` }));
    expect(error).toMatchObject({ field: 'body', reason: 'output_too_large' });
  });

  it('stops runaway allocation (huge ranges, doubling captures) as output_too_large', async () => {
    expect(await failure(renderer.validate({ subject: '{% for i in (1..100000000) %}{% endfor %}', body: 'x' }))).toMatchObject({
      field: 'subject',
      reason: 'output_too_large',
    });
    const doubling = '{% assign x = "ab" %}{% for i in (1..60) %}{% capture x %}{{ x }}{{ x }}{% endcapture %}{% endfor %}{{ x | size }}';
    expect(await failure(renderer.validate({ subject: 's', body: doubling }))).toMatchObject({ field: 'body', reason: 'output_too_large' });
  });

  it('stops a render that runs too long as timeout, and the next render works', async () => {
    const loops = '{% assign r = (1..1000) %}{% for i in r %}{% for j in r %}{% for k in r %}{% endfor %}{% endfor %}{% endfor %}';
    const started = Date.now();
    const error = await failure(renderer.validate({ subject: 's', body: 'x', body_text: loops }));
    expect(error).toMatchObject({ field: 'body_text', reason: 'timeout' });
    expect(Date.now() - started).toBeLessThan(2000);
    expect(await renderer.render({ subject: 'Hi {{ first_name }}', body: 'x' }, { first_name: 'Ann' })).toMatchObject({ subject: 'Hi Ann' });
  });

  it('validates against the sample contact', async () => {
    // Fine for an empty contact, over the limit for the sample: refused when saved.
    const template = `{% if email != blank %}{% for i in (1..1000) %}{{ email }}${'x'.repeat(1024)}{% endfor %}{% endif %}`;
    await expect(renderer.render({ subject: 's', body: template }, {})).resolves.toBeDefined();
    expect(await failure(renderer.validate({ subject: 's', body: template }))).toMatchObject({ reason: 'output_too_large' });
    expect(SAMPLE_VARIABLES).toHaveProperty('sender.email');
  });

  it('fails a render whose variables cannot be sent to a worker, and only that one', async () => {
    const error = await failure(renderer.render({ subject: 's', body: 'x' }, { callback: () => 1 }));
    expect(error).toMatchObject({ reason: 'render' });
    await expect(renderer.render({ subject: 'ok', body: 'x' }, {})).resolves.toMatchObject({ subject: 'ok' });
  });
});

describe('template renderer containment', () => {
  it('terminates a worker stuck inside one step, replaces it, and never stalls the others', async () => {
    const renderer = createTemplateRenderer({ workers: 1, limits: { timeoutMs: 100 } });
    try {
      // One output sorting a long list: liquidjs only looks at its clock between nodes. The input is
      // one string, quick to copy to the worker, so the time is spent inside the body's render.
      const letters = Array.from({ length: 600_000 }, (_, i) => String.fromCharCode(97 + ((i * 7919) % 26))).join('');
      const stuck = renderer.render({ subject: 's', body: '{{ letters | split: "" | sort | join: "" | size }}' }, { letters });
      const queued = renderer.render({ subject: 'still {{ name }}', body: 'x' }, { name: 'here' });
      const started = Date.now();
      const error = await failure(stuck);
      // The thread was killed (liquidjs's own limit would say "template render limit exceeded").
      expect(error).toMatchObject({ field: 'body', reason: 'timeout', message: 'body: rendering took longer than 100 ms' });
      await expect(queued).resolves.toMatchObject({ subject: 'still here' });
      expect(Date.now() - started).toBeLessThan(3000);
    } finally {
      await renderer.close();
    }
  });

  it('runs renders side by side on several workers', async () => {
    const renderer = createTemplateRenderer({ workers: 2 });
    try {
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) => renderer.render({ subject: '#{{ n }}', body: '<p>{{ n | times: 2 }}</p>' }, { n: i })),
      );
      expect(results.map((r) => r.subject)).toEqual(Array.from({ length: 20 }, (_, i) => `#${i}`));
      expect(results[7]!.html).toBe('<p>14</p>');
    } finally {
      await renderer.close();
    }
  });

  it('fails renders beyond the queue limit at once as unavailable', async () => {
    const renderer = createTemplateRenderer({ workers: 1, maxQueue: 2 });
    try {
      const accepted = [1, 2].map((n) => renderer.render({ subject: `${n}`, body: 'x' }, {}));
      expect(await failure(renderer.render({ subject: '3', body: 'x' }, {}))).toMatchObject({ reason: 'unavailable', field: undefined });
      await expect(Promise.all(accepted)).resolves.toHaveLength(2);
    } finally {
      await renderer.close();
    }
  });

  it('after close, fails waiting and later renders as unavailable', async () => {
    const renderer = createTemplateRenderer({ workers: 1 });
    const waiting = failure(renderer.render({ subject: 's', body: 'x' }, {}));
    await renderer.close();
    expect(await waiting).toMatchObject({ reason: 'unavailable' });
    expect(await failure(renderer.render({ subject: 's', body: 'x' }, {}))).toMatchObject({ reason: 'unavailable' });
    await renderer.close();
  });
});
