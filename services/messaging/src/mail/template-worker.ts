/**
 * The code of the template worker thread, and the messages it exchanges with the renderer.
 *
 * It is plain JavaScript in a string, started with `new Worker(source, { eval: true })`, so it runs
 * unchanged from the TypeScript sources under Jest (no transform reaches a worker) and from the
 * compiled `dist/`. It loads liquidjs and html-to-text by the absolute paths the renderer resolves
 * and passes in `workerData`; it needs nothing else.
 *
 * Protocol: the worker posts `{type: 'ready'}` once loaded, then answers each `WorkerRequest` with
 * one `WorkerResponse` carrying the same id. Before each field it stores the field's number in the
 * shared `progress` cell, so the renderer can name the field even when it has to kill the thread.
 */

export type TemplateField = 'subject' | 'body' | 'body_text';

/** Field numbers in the shared progress cell (0 = none started yet). */
export const PROGRESS_FIELDS: readonly (TemplateField | undefined)[] = [undefined, 'subject', 'body', 'body_text'];

export interface WorkerLimits {
  /** liquidjs parseLimit: characters of one template. */
  parseLimit: number;
  /** liquidjs renderLimit: milliseconds for all fields of one request together. */
  renderLimitMs: number;
  /** liquidjs memoryLimit: characters and elements allocated by filters and ranges in one render. */
  memoryLimit: number;
  /** UTF-8 bytes of each rendered field. */
  maxOutputBytes: number;
  /** Parsed templates kept per engine, keyed by source: a campaign renders one template many times. */
  cacheSize: number;
}

export interface WorkerData {
  liquidPath: string;
  htmlToTextPath: string;
  limits: WorkerLimits;
  progress: SharedArrayBuffer;
}

export interface WorkerRequest {
  id: number;
  templates: { subject: string; body: string; body_text?: string };
  variables: Record<string, unknown>;
}

export type WorkerReason = 'syntax' | 'timeout' | 'output_too_large' | 'render';

export type WorkerResponse =
  | { type: 'ready' }
  | { type: 'result'; id: number; ok: true; result: { subject: string; html: string; text: string } }
  | {
      type: 'result';
      id: number;
      ok: false;
      field: TemplateField;
      reason: WorkerReason;
      message: string;
      line?: number;
      col?: number;
    };

export const TEMPLATE_WORKER_SOURCE = String.raw`
'use strict';
const { parentPort, workerData } = require('node:worker_threads');
const liquidjs = require(workerData.liquidPath);
const { compile } = require(workerData.htmlToTextPath);
const limits = workerData.limits;
const progress = new Int32Array(workerData.progress);
const FIELD_NUMBER = { subject: 1, body: 2, body_text: 3 };

// No template may read a file: the tags that would are removed below, and this refuses anyway.
const refuse = () => { throw new Error('templates cannot read files'); };
const noFiles = {
  exists: async () => false, existsSync: () => false,
  readFile: async () => refuse(), readFileSync: refuse,
  resolve: refuse, contains: () => false, dirname: () => '', sep: '/',
};

function createEngine(escapeOutput) {
  const liquid = new liquidjs.Liquid({
    fs: noFiles, root: [], partials: [], layouts: [], relativeReference: false, dynamicPartials: false,
    strictFilters: true, strictVariables: false, ownPropertyOnly: true,
    parseLimit: limits.parseLimit, memoryLimit: limits.memoryLimit, renderLimit: limits.renderLimitMs,
    outputEscape: escapeOutput ? 'escape' : undefined,
  });
  for (const tag of ['include', 'render', 'layout', 'block']) delete liquid.tags[tag];
  // Without "raw" there is no way to print a value unescaped into the HTML body.
  delete liquid.filters.raw;
  if (escapeOutput) {
    // Output already escaped by these filters is not escaped a second time ("&amp;lt;").
    for (const name of ['escape', 'escape_once']) {
      const handler = liquid.filters[name];
      liquid.registerFilter(name, { handler: typeof handler === 'function' ? handler : handler.handler, raw: true });
    }
  }
  return { liquid, cache: new Map() };
}
const engines = { html: createEngine(true), plain: createEngine(false) };

function parse(engine, source) {
  const cached = engine.cache.get(source);
  if (cached) {
    engine.cache.delete(source);
    engine.cache.set(source, cached);
    return cached;
  }
  const parsed = engine.liquid.parse(source);
  engine.cache.set(source, parsed);
  if (engine.cache.size > limits.cacheSize) engine.cache.delete(engine.cache.keys().next().value);
  return parsed;
}

class OutputTooLarge extends Error {}

// Counts output as it is produced, so a loop that prints too much stops at the limit instead of
// building the whole string first. UTF-16 length never exceeds UTF-8 size, so it is a safe early cut.
class LimitedEmitter {
  constructor() { this.buffer = ''; }
  write(value) {
    const text = stringify(value);
    if (this.buffer.length + text.length > limits.maxOutputBytes) throw new OutputTooLarge('the rendered output is larger than the limit');
    this.buffer += text;
  }
}
function stringify(value) {
  value = liquidjs.toValue(value);
  if (typeof value === 'string') return value;
  if (value === null || value === undefined) return '';
  if (Array.isArray(value)) return value.map(stringify).join('');
  return String(value);
}

function render(engine, templates, variables, deadline) {
  const ctx = new liquidjs.Context(variables, engine.liquid.options, {
    sync: true,
    renderLimit: Math.max(1, deadline - performance.now()),
  }, { liquid: engine.liquid });
  const output = liquidjs.toValueSync(engine.liquid.renderer.renderTemplates(templates, ctx, new LimitedEmitter()));
  return checkSize(output);
}

function checkSize(output) {
  if (Buffer.byteLength(output, 'utf8') > limits.maxOutputBytes) throw new OutputTooLarge('the rendered output is larger than the limit');
  return output;
}

function failure(id, field, error) {
  const original = (error && error.originalError) || error;
  const raw = String((original && original.message) || (error && error.message) || error);
  let reason = 'render';
  if (original instanceof OutputTooLarge || /Invalid string length|Invalid array length|memory alloc limit exceeded|allocation failed/i.test(raw)) reason = 'output_too_large';
  else if (/template render limit exceeded/.test(raw)) reason = 'timeout';
  else if (/parse length limit exceeded/.test(raw)) reason = 'syntax';
  else if (error && (error.name === 'ParseError' || error.name === 'TokenizationError')) reason = 'syntax';
  const response = { type: 'result', id, ok: false, field, reason, message: raw.replace(/, line:\d+, col:\d+$/, '') };
  const token = error && error.token;
  if (token && typeof token.getPosition === 'function') {
    const [line, col] = token.getPosition();
    response.line = line;
    response.col = col;
  }
  return response;
}

const TEXT_OPTIONS = {
  wordwrap: false,
  selectors: [
    { selector: 'img', format: 'skip' },
    { selector: 'a', options: { hideLinkHrefIfSameAsText: true } },
  ],
};
// Compiled once: html-to-text's convert compiles its options (selectors and all) on every call.
const toText = compile(TEXT_OPTIONS);

function handle(request) {
  const deadline = performance.now() + limits.renderLimitMs;
  const { templates, variables } = request;
  const hasText = typeof templates.body_text === 'string';
  const fields = [['subject', engines.plain], ['body', engines.html]];
  if (hasText) fields.push(['body_text', engines.plain]);
  const parsed = {};
  for (const [field, engine] of fields) {
    Atomics.store(progress, 0, FIELD_NUMBER[field]);
    try { parsed[field] = parse(engine, templates[field]); } catch (error) { return failure(request.id, field, error); }
  }
  const out = {};
  for (const [field, engine] of fields) {
    Atomics.store(progress, 0, FIELD_NUMBER[field]);
    try { out[field] = render(engine, parsed[field], variables, deadline); } catch (error) { return failure(request.id, field, error); }
  }
  let text = out.body_text;
  if (!hasText) {
    Atomics.store(progress, 0, FIELD_NUMBER.body);
    try { text = checkSize(toText(out.body)); } catch (error) { return failure(request.id, 'body', error); }
  }
  return { type: 'result', id: request.id, ok: true, result: { subject: out.subject, html: out.body, text } };
}

parentPort.on('message', (request) => {
  let response;
  try { response = handle(request); } catch (error) { response = failure(request.id, 'body', error); }
  parentPort.postMessage(response);
});
parentPort.postMessage({ type: 'ready' });
`;
