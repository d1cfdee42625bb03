import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import {
  PROGRESS_FIELDS,
  TEMPLATE_WORKER_SOURCE,
  type TemplateField,
  type WorkerData,
  type WorkerLimits,
  type WorkerRequest,
  type WorkerResponse,
} from './template-worker';

export type { TemplateField } from './template-worker';

/**
 * Liquid rendering of an email's subject, HTML body and optional text body, over a contact's
 * fields (`{{ first_name | default: "there" }}`) and `sender.*` (the owner).
 *
 * Sandbox. Templates cannot read files or reach the network: `include`, `render`, `layout` and
 * `block` are not tags here (using one is a syntax error) and the engine's file system refuses
 * every read. Only own properties of the variables are visible (`ownPropertyOnly`), an unknown
 * filter is a syntax error (`strictFilters`), and a missing variable renders empty, never
 * `{{...}}`. In the HTML body every `{{ }}` output is HTML-escaped and the `raw` filter does not
 * exist, so a contact value such as `<script>` prints as text; markup comes from the template
 * alone. The subject and the text body are not escaped (they are not HTML).
 *
 * Containment. liquidjs guards against neither loops nor huge output, so rendering runs in worker
 * threads with limits (see `DEFAULT_TEMPLATE_LIMITS`). liquidjs's own render-time, memory and
 * parse-length limits stop most excess cleanly inside the worker; a render that still overruns is
 * ended by terminating its thread, which is replaced. Either way only that render fails, with a
 * `TemplateError`; other renders keep their workers, and no caller waits longer than its own
 * time limit once a worker has taken its render.
 */

export interface Templates {
  subject: string;
  /** HTML. */
  body: string;
  /** Text alternative; absent, null or empty derives it from the rendered HTML (html-to-text). */
  body_text?: string | null;
}

export interface RenderedTemplates {
  subject: string;
  html: string;
  text: string;
}

/** The values a template sees: a contact's fields at the top level, plus `sender` (the owner). */
export type TemplateVariables = Record<string, unknown>;

export type TemplateErrorReason = 'syntax' | 'timeout' | 'output_too_large' | 'render' | 'unavailable';

/**
 * Why a template was refused or a render failed. `field` names the template (`subject`, `body`,
 * `body_text`) whenever the failure comes from one. It is absent for `unavailable` (the renderer is
 * closed, overloaded or its workers cannot start: not the template's fault, so not a 422), for
 * variables that cannot be copied to a worker (`render`, a caller's bug), and for a `timeout` that
 * struck before the first field started (variables so large that copying them used up the time).
 * `line` and `col` locate a syntax or render error in that template when liquidjs reports them.
 */
export class TemplateError extends Error {
  override readonly name = 'TemplateError';
  constructor(
    readonly reason: TemplateErrorReason,
    message: string,
    readonly field?: TemplateField,
    readonly line?: number,
    readonly col?: number,
  ) {
    super(`${field ? `${field}: ` : ''}${message}${line !== undefined ? ` (line ${line}, column ${col})` : ''}`);
  }
}

export interface TemplateLimits {
  /**
   * Time for one render, all fields together. A real email template renders in well under a
   * millisecond; 250 ms is two orders of magnitude of headroom on a busy shared core, and short
   * enough that a hostile template holds a worker for a quarter of a second at most.
   */
  timeoutMs: number;
  /**
   * UTF-8 bytes of each rendered field. Gmail clips HTML past about 100 KB and no legitimate email
   * comes near 512 KiB; the limit keeps every raw message (after MIME encoding) far below SMTP
   * size limits and bounds what one send can cost in memory, storage and `.eml` files.
   */
  maxOutputBytes: number;
  /**
   * Characters of one template. Designed HTML emails with inlined CSS run to tens of kilobytes;
   * 256 Ki leaves room while bounding parse time and the parsed-template cache.
   */
  maxTemplateLength: number;
  /**
   * liquidjs memoryLimit: characters and array elements that filters and ranges may allocate in one
   * render. Eight times the output limit allows any template that can produce a legal output while
   * refusing `(1..100000000)` ranges and runaway `append`s before they allocate.
   */
  memoryLimit: number;
}

export const DEFAULT_TEMPLATE_LIMITS: TemplateLimits = {
  timeoutMs: 250,
  maxOutputBytes: 512 * 1024,
  maxTemplateLength: 256 * 1024,
  memoryLimit: 8 * 512 * 1024,
};

/**
 * What `validate` renders against: a plausible contact with every standard field set (custom
 * fields empty) and a sender. A template that is over the limits for this contact is refused when
 * it is saved; one that only exceeds them for some real contact's data fails that send alone.
 */
export const SAMPLE_VARIABLES: TemplateVariables = {
  id: '01900000-0000-7000-8000-000000000000',
  first_name: 'Alex',
  last_name: 'Sample',
  email: 'alex.sample@example.com',
  phone: '+1 555 0100',
  title: 'Head of Operations',
  company_name: 'Example Corp',
  company_domain: 'example.com',
  internal_stage: 'lead',
  priority: 10,
  source: 'import',
  country: 'US',
  state: 'CA',
  city: 'San Francisco',
  custom_fields: {},
  sender: { first_name: 'Sam', last_name: 'Owner', name: 'Sam Owner', email: 'sam.owner@example.com' },
};

export interface TemplateRendererOptions {
  limits?: Partial<TemplateLimits>;
  /** Worker threads, started on first use. Default: 2, or 1 on a single-core machine. */
  workers?: number;
  /** Renders allowed to wait for a worker; beyond this a render fails at once as `unavailable`. Default 1000. */
  maxQueue?: number;
  /** Variables `validate` renders against. Default `SAMPLE_VARIABLES`. */
  sampleVariables?: TemplateVariables;
}

export interface TemplateRenderer {
  /**
   * Resolves when the templates parse and render within the limits against the sample variables;
   * otherwise rejects with the `TemplateError` of the first field that fails (the API's 422).
   */
  validate(templates: Templates): Promise<void>;
  /** Renders for one recipient. Rejects with `TemplateError` only; the failure is this render's alone. */
  render(templates: Templates, variables: TemplateVariables): Promise<RenderedTemplates>;
  /** Fails waiting renders as `unavailable`, ends the workers, and refuses later calls. */
  close(): Promise<void>;
}

// Time between liquidjs's own deadline and terminating the thread: the engine checks its clock
// between template nodes, so one slow filter can overrun it; this is how far.
const KILL_GRACE_MS = 100;
const CACHE_SIZE = 256;
// The heap a worker may grow to: output limits keep a render to a few megabytes, so reaching this
// means something escaped them; the thread dies alone, reported as output_too_large.
const WORKER_HEAP_MB = 96;

interface Job {
  id: number;
  request: WorkerRequest;
  resolve(result: RenderedTemplates): void;
  reject(error: TemplateError): void;
}

interface Slot {
  worker: Worker;
  progress: Int32Array;
  ready: boolean;
  retired: boolean;
  job?: Job;
  timer?: NodeJS.Timeout;
}

export function createTemplateRenderer(options: TemplateRendererOptions = {}): TemplateRenderer {
  const limits: TemplateLimits = { ...DEFAULT_TEMPLATE_LIMITS, ...options.limits };
  const workerCount = Math.max(1, options.workers ?? Math.min(2, availableParallelism()));
  const maxQueue = options.maxQueue ?? 1000;
  const sample = options.sampleVariables ?? SAMPLE_VARIABLES;
  const workerLimits: WorkerLimits = {
    parseLimit: limits.maxTemplateLength,
    renderLimitMs: limits.timeoutMs,
    memoryLimit: limits.memoryLimit,
    maxOutputBytes: limits.maxOutputBytes,
    cacheSize: CACHE_SIZE,
  };
  const modulePaths = { liquidPath: require.resolve('liquidjs'), htmlToTextPath: require.resolve('html-to-text') };

  const slots: Slot[] = [];
  const queue: Job[] = [];
  let nextId = 1;
  let closed = false;

  function spawn(): void {
    const progress = new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT);
    const workerData: WorkerData = { ...modulePaths, limits: workerLimits, progress };
    const worker = new Worker(TEMPLATE_WORKER_SOURCE, {
      eval: true,
      workerData,
      resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB },
    });
    // An idle worker must not keep the process alive; a busy one is ref'd until it answers.
    worker.unref();
    const slot: Slot = { worker, progress: new Int32Array(progress), ready: false, retired: false };
    slots.push(slot);
    worker.on('message', (message: WorkerResponse) => onMessage(slot, message));
    worker.on('error', (error: Error & { code?: string }) =>
      retire(
        slot,
        error.code === 'ERR_WORKER_OUT_OF_MEMORY'
          ? (field) => new TemplateError('output_too_large', 'rendering ran out of memory', field)
          : () => new TemplateError('unavailable', `the template worker failed: ${error.message}`),
      ),
    );
    worker.on('exit', () => retire(slot, () => new TemplateError('unavailable', 'the template worker stopped')));
  }

  function onMessage(slot: Slot, message: WorkerResponse): void {
    if (message.type === 'ready') {
      slot.ready = true;
      dispatch();
      return;
    }
    const job = slot.job;
    if (!job || job.id !== message.id) return;
    finish(slot);
    if (message.ok) job.resolve(message.result);
    else job.reject(new TemplateError(message.reason, message.message, message.field, message.line, message.col));
    dispatch();
  }

  function finish(slot: Slot): void {
    clearTimeout(slot.timer);
    slot.timer = undefined;
    slot.job = undefined;
    slot.worker.unref();
  }

  /** Takes a worker out of service for good, failing its render with the error for the field it was on. */
  function retire(slot: Slot, errorFor: (field: TemplateField | undefined) => TemplateError): void {
    if (slot.retired) return;
    slot.retired = true;
    slots.splice(slots.indexOf(slot), 1);
    const job = slot.job;
    const field = PROGRESS_FIELDS[Atomics.load(slot.progress, 0)];
    finish(slot);
    void slot.worker.terminate();
    job?.reject(errorFor(field));
    // A worker that dies before it is ready will not do better on a retry (a broken install):
    // unless another worker is serving, fail what is waiting rather than respawn in a loop; the
    // next render tries again.
    if (!slot.ready && !closed && !slots.some((s) => s.ready)) {
      for (const waiting of queue.splice(0)) waiting.reject(errorFor(undefined));
    }
    dispatch();
  }

  function start(slot: Slot, job: Job): void {
    slot.job = job;
    Atomics.store(slot.progress, 0, 0);
    try {
      slot.worker.postMessage(job.request);
    } catch (error) {
      finish(slot);
      job.reject(new TemplateError('render', `variables must be plain data: ${(error as Error).message}`));
      return;
    }
    slot.worker.ref();
    slot.timer = setTimeout(
      () =>
        retire(slot, (field) => new TemplateError('timeout', `rendering took longer than ${limits.timeoutMs} ms`, field)),
      limits.timeoutMs + KILL_GRACE_MS,
    );
  }

  function dispatch(): void {
    while (!closed && queue.length > 0) {
      const idle = slots.find((s) => s.ready && !s.job);
      if (idle) {
        start(idle, queue.shift()!);
        continue;
      }
      const starting = slots.filter((s) => !s.ready).length;
      if (slots.length < workerCount && starting < queue.length) {
        spawn();
        continue;
      }
      return;
    }
  }

  async function run(templates: Templates, variables: TemplateVariables): Promise<RenderedTemplates> {
    if (closed) throw new TemplateError('unavailable', 'the template renderer is closed');
    const request = checkTemplates(templates, limits.maxTemplateLength);
    if (queue.length >= maxQueue) throw new TemplateError('unavailable', 'too many renders are waiting');
    return new Promise<RenderedTemplates>((resolve, reject) => {
      const id = nextId++;
      queue.push({ id, request: { ...request, id, variables }, resolve, reject });
      dispatch();
    });
  }

  return {
    async validate(templates) {
      await run(templates, sample);
    },
    render(templates, variables) {
      return run(templates, variables);
    },
    async close() {
      if (closed) return;
      closed = true;
      for (const job of queue.splice(0)) job.reject(new TemplateError('unavailable', 'the template renderer is closed'));
      const stopping = slots.splice(0);
      for (const slot of stopping) {
        slot.retired = true;
        slot.job?.reject(new TemplateError('unavailable', 'the template renderer is closed'));
        finish(slot);
      }
      await Promise.all(stopping.map((slot) => slot.worker.terminate()));
    },
  };
}

/** Checked before a worker is involved: the shape, and the length that bounds parsing. */
function checkTemplates(templates: Templates, maxLength: number): Omit<WorkerRequest, 'id' | 'variables'> {
  const fields: [TemplateField, unknown][] = [
    ['subject', templates?.subject],
    ['body', templates?.body],
  ];
  const text = templates?.body_text;
  if (text !== undefined && text !== null && text !== '') fields.push(['body_text', text]);
  for (const [field, value] of fields) {
    if (typeof value !== 'string') throw new TemplateError('syntax', 'must be a string', field);
    if (value.length > maxLength) throw new TemplateError('syntax', `is longer than ${maxLength} characters`, field);
  }
  return {
    templates: {
      subject: templates.subject,
      body: templates.body,
      ...(fields.length === 3 ? { body_text: text as string } : {}),
    },
  };
}
