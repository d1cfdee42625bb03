import { type FieldIssue, type FieldType, isUuid, parseDateTime } from '@crm/kit';
import { NODE_TYPES } from '@crm/flows-contract';
import {
  CONTACT_FIELD_OPS,
  CUSTOM_FIELD_PREFIX,
  type ContactFieldCatalog,
  type ContactFieldDef,
  type ContactFieldOp,
  type ContactFieldTest,
} from './contact-fields';
import { type TextRule, checkInteger, checkText, hasOwn, isObject } from './text';

/**
 * Node types and their configs. Each config is validated when the flow is saved; the parsed form
 * below is what the engine executes. The rules and their reasons are listed in ./README.md, "Node
 * configs".
 */

// The contract's list: the API documents and filters the same types the graph accepts.
export { NODE_TYPES };
export type NodeType = (typeof NODE_TYPES)[number];

/** Node types that create an open task and wait for its completion. */
export const TASK_NODE_TYPES = ['task', 'call', 'chat_message', 'professional_network'] as const;
export type TaskNodeType = (typeof TASK_NODE_TYPES)[number];

export const isNodeType = (value: unknown): value is NodeType =>
  typeof value === 'string' && (NODE_TYPES as readonly string[]).includes(value);

export const isTaskNodeType = (type: NodeType): type is TaskNodeType => (TASK_NODE_TYPES as readonly string[]).includes(type);

const DAY = 86_400;

/** Every limit the configs enforce, in one place for the API documentation. */
export const CONFIG_LIMITS = {
  /** Liquid source of a subject; one line. */
  subjectMaxLength: 1_000,
  /** Liquid source of an HTML body; Gmail clips messages past 102 KB. */
  bodyMaxLength: 100_000,
  bodyTextMaxLength: 100_000,
  /** Same as a task's title and description (activities' tasks resource). */
  titleMaxLength: 255,
  descriptionMaxLength: 10_000,
  /** Waits, due offsets and branch windows share one ceiling: a year. */
  maxSeconds: 365 * DAY,
  priorityMin: 0,
  priorityMax: 1_000,
  /** A field test's string value. */
  testValueMaxLength: 1_000,
  /** A custom field's name, as record-codec bounds custom properties. */
  customFieldNameMaxLength: 100,
} as const;

// ---------------------------------------------------------------------------------------------
// Parsed configs

/**
 * An email written in the node: Liquid subject and HTML body, optional text part. Without a
 * subject it is a reply in the enrollment's thread: `Re: ` and the subject of its previous email
 * (only where an email comes before it on every path; the graph checks that).
 */
export interface InlineEmailConfig {
  subject?: string;
  body: string;
  /** Overrides the text part otherwise derived from `body`. */
  body_text?: string;
}

/** An email whose subject and body come from a stored template, rendered at send time. */
export interface TemplateEmailConfig {
  template_id: string;
}

export type EmailConfig = InlineEmailConfig | TemplateEmailConfig;

export const isTemplateEmail = (config: EmailConfig): config is TemplateEmailConfig => 'template_id' in config;

export interface WaitConfig {
  duration_seconds: number;
}

/** task, call, chat_message, professional_network: an open task the enrollment waits on. */
export interface TaskConfig {
  title: string;
  description?: string;
  /** Seconds from the task's creation to its `due_at`; no due date when absent. */
  due_in_seconds?: number;
  priority?: number;
}

export const EMAIL_CONDITIONS = ['opened', 'clicked', 'replied'] as const;
/** An event on the enrollment's previous email. */
export type EmailCondition = (typeof EMAIL_CONDITIONS)[number];

export type BranchConfig =
  | { condition: EmailCondition; within_seconds: number }
  /** A field test does not wait: `within_seconds` is always 0. */
  | { condition: ContactFieldTest; within_seconds: 0 };

export const isEmailCondition = (condition: BranchConfig['condition']): condition is EmailCondition =>
  typeof condition === 'string';

export type EndConfig = Record<string, never>;

/** The parsed config of each node type. */
export interface NodeConfigs {
  email: EmailConfig;
  wait: WaitConfig;
  task: TaskConfig;
  call: TaskConfig;
  chat_message: TaskConfig;
  professional_network: TaskConfig;
  branch: BranchConfig;
  end: EndConfig;
}

// ---------------------------------------------------------------------------------------------
// Parsing

/** Where a config sits and what it may refer to; issues are appended to `issues`. */
export interface ConfigContext {
  /** Field path of the config, e.g. `nodes[2].config`. */
  readonly path: string;
  /** How messages name the node, e.g. `node 'welcome'`. */
  readonly who: string;
  readonly contactFields: ContactFieldCatalog;
  /** Whether `custom.<name>` tests are allowed. */
  readonly customContactFields: boolean;
  readonly issues: FieldIssue[];
}

type Reader = {
  /** The value of a setting, with null read as absent (so a GET → PUT round trip is accepted). */
  get(key: string): unknown;
  has(key: string): boolean;
  issue(key: string | undefined, message: string): void;
};

function reader(ctx: ConfigContext, config: Record<string, unknown>): Reader {
  return {
    get: (key) => (hasOwn(config, key) && config[key] !== null ? config[key] : undefined),
    has: (key) => hasOwn(config, key) && config[key] !== null && config[key] !== undefined,
    issue: (key, message) =>
      ctx.issues.push({ field: key === undefined ? ctx.path : `${ctx.path}.${key}`, message: `${ctx.who}: ${message}` }),
  };
}

const ALLOWED_KEYS: { readonly [T in NodeType]: readonly string[] } = {
  email: ['subject', 'body', 'body_text', 'template_id'],
  wait: ['duration_seconds'],
  task: ['title', 'description', 'due_in_seconds', 'priority'],
  call: ['title', 'description', 'due_in_seconds', 'priority'],
  chat_message: ['title', 'description', 'due_in_seconds', 'priority'],
  professional_network: ['title', 'description', 'due_in_seconds', 'priority'],
  branch: ['condition', 'within_seconds'],
  end: [],
};

/**
 * Validates one node's config against its type. A missing or null config is read as `{}` so the
 * issues name the missing settings instead of the whole object. Returns undefined when any issue
 * was added.
 */
export function parseNodeConfig<T extends NodeType>(type: T, value: unknown, ctx: ConfigContext): NodeConfigs[T] | undefined;
export function parseNodeConfig(type: NodeType, value: unknown, ctx: ConfigContext): NodeConfigs[NodeType] | undefined {
  if (value === undefined || value === null) value = {};
  if (!isObject(value)) {
    ctx.issues.push({ field: ctx.path, message: `${ctx.who}: config must be an object` });
    return undefined;
  }
  const before = ctx.issues.length;
  const r = reader(ctx, value);
  const allowed = ALLOWED_KEYS[type];
  for (const key of Object.keys(value)) {
    if (!allowed.includes(key)) {
      r.issue(key, allowed.length ? `is not a setting of ${type} nodes (allowed: ${allowed.join(', ')})` : `${type} nodes take no settings`);
    }
  }
  const config = parseByType(type, r, ctx);
  return ctx.issues.length === before ? config : undefined;
}

function parseByType(type: NodeType, r: Reader, ctx: ConfigContext): NodeConfigs[NodeType] {
  switch (type) {
    case 'email':
      return parseEmail(r);
    case 'wait': {
      const duration = requiredInteger(r, 'duration_seconds', 1, CONFIG_LIMITS.maxSeconds);
      return { duration_seconds: duration ?? 0 };
    }
    case 'task':
    case 'call':
    case 'chat_message':
    case 'professional_network':
      return parseTask(r);
    case 'branch':
      return parseBranch(r, ctx);
    case 'end':
      return {};
  }
}

function requiredInteger(r: Reader, key: string, min: number, max: number): number | undefined {
  if (!r.has(key)) {
    r.issue(key, 'is required');
    return undefined;
  }
  return optionalInteger(r, key, min, max);
}

function optionalInteger(r: Reader, key: string, min: number, max: number): number | undefined {
  const value = r.get(key);
  if (value === undefined) return undefined;
  const problem = checkInteger(value, min, max);
  if (problem) r.issue(key, problem);
  return problem ? undefined : (value as number);
}

/** A text setting; `required` is false or the message for a missing value. */
function text(r: Reader, key: string, rule: TextRule, required: false | string): string | undefined {
  const value = r.get(key);
  if (value === undefined) {
    if (required) r.issue(key, required);
    return undefined;
  }
  const problem = checkText(value, rule);
  if (problem) r.issue(key, problem);
  return problem ? undefined : (value as string);
}

function parseEmail(r: Reader): EmailConfig {
  if (r.has('template_id')) {
    // One source of truth: a node either carries its own content or points at a template whose
    // current content is rendered at send time. Mixing both would leave it unclear which wins.
    for (const key of ['subject', 'body', 'body_text']) {
      if (r.has(key)) r.issue(key, 'cannot be combined with template_id: the template supplies the subject and body');
    }
    const id = r.get('template_id');
    if (typeof id !== 'string' || !isUuid(id)) {
      r.issue('template_id', 'must be a UUID');
      return { template_id: '' };
    }
    return { template_id: id.toLowerCase() };
  }
  const required = 'is required (or give template_id instead of subject and body)';
  // A subject left out makes the email a reply in the thread (checked against the graph's paths).
  const subject = text(r, 'subject', { max: CONFIG_LIMITS.subjectMaxLength, nonBlank: true, singleLine: true }, false);
  const body = text(r, 'body', { max: CONFIG_LIMITS.bodyMaxLength, nonBlank: true }, required);
  const bodyText = text(r, 'body_text', { max: CONFIG_LIMITS.bodyTextMaxLength, nonBlank: true }, false);
  const config: InlineEmailConfig = { body: body ?? '' };
  if (subject !== undefined) config.subject = subject;
  if (bodyText !== undefined) config.body_text = bodyText;
  return config;
}

function parseTask(r: Reader): TaskConfig {
  const title = text(r, 'title', { max: CONFIG_LIMITS.titleMaxLength, nonBlank: true, singleLine: true }, 'is required');
  const description = text(r, 'description', { max: CONFIG_LIMITS.descriptionMaxLength }, false);
  const due = optionalInteger(r, 'due_in_seconds', 0, CONFIG_LIMITS.maxSeconds);
  const priority = optionalInteger(r, 'priority', CONFIG_LIMITS.priorityMin, CONFIG_LIMITS.priorityMax);
  const config: TaskConfig = { title: title ?? '' };
  if (description !== undefined) config.description = description;
  if (due !== undefined) config.due_in_seconds = due;
  if (priority !== undefined) config.priority = priority;
  return config;
}

function parseBranch(r: Reader, ctx: ConfigContext): BranchConfig {
  const condition = r.get('condition');
  if (condition === undefined) {
    r.issue('condition', `is required: one of ${EMAIL_CONDITIONS.join(', ')}, or a contact field test {field, op, value}`);
    return { condition: 'opened', within_seconds: 0 };
  }
  if (typeof condition === 'string') {
    if (!(EMAIL_CONDITIONS as readonly string[]).includes(condition)) {
      r.issue('condition', `must be one of ${EMAIL_CONDITIONS.join(', ')}, or a contact field test {field, op, value}`);
    }
    // A window of 0 is legal: it asks whether the event has already happened.
    const within = requiredInteger(r, 'within_seconds', 0, CONFIG_LIMITS.maxSeconds);
    return { condition: condition as EmailCondition, within_seconds: within ?? 0 };
  }
  if (!isObject(condition)) {
    r.issue('condition', `must be one of ${EMAIL_CONDITIONS.join(', ')}, or a contact field test {field, op, value}`);
    return { condition: 'opened', within_seconds: 0 };
  }
  // A field test is evaluated once, on arrival: the engine does not watch contacts for changes.
  // Delaying it is what a wait node before the branch is for.
  const within = r.get('within_seconds');
  if (within !== undefined && within !== 0) {
    r.issue('within_seconds', 'must be 0 or absent for a contact field test (it is evaluated on arrival; put a wait node before the branch to delay it)');
  }
  const test = parseFieldTest(condition, { ...ctx, path: `${ctx.path}.condition` });
  return { condition: test ?? { field: '', op: 'exists' }, within_seconds: 0 };
}

// ---------------------------------------------------------------------------------------------
// Contact field tests: parsing (the catalog and evaluation are in ./contact-fields.ts)

const STRING_TYPES: readonly FieldType[] = ['string', 'text', 'email', 'url'];
const ORDERED_TYPES: readonly FieldType[] = ['integer', 'datetime'];

/** How a field test sees a field: a catalog type, or `custom` for an untyped custom property. */
type TestFieldKind = { kind: 'declared'; name: string; def: ContactFieldDef } | { kind: 'custom'; name: string };

function resolveTestField(field: string, ctx: ConfigContext): TestFieldKind | string {
  if (field.startsWith(CUSTOM_FIELD_PREFIX)) {
    const name = field.slice(CUSTOM_FIELD_PREFIX.length);
    if (!ctx.customContactFields) return 'custom fields cannot be tested in this workspace';
    if (name.length === 0 || name.length > CONFIG_LIMITS.customFieldNameMaxLength) {
      return `a custom field name must be 1 to ${CONFIG_LIMITS.customFieldNameMaxLength} characters`;
    }
    const problem = checkText(name, { max: CONFIG_LIMITS.customFieldNameMaxLength, singleLine: true });
    if (problem) return `custom field name ${problem}`;
    if (hasOwn(ctx.contactFields, name)) return `'${name}' is a declared field: test it as '${name}', not '${field}'`;
    return { kind: 'custom', name };
  }
  if (!hasOwn(ctx.contactFields, field)) {
    const custom = ctx.customContactFields ? `, or custom.<name>` : '';
    return `is not a contact field a branch can test (one of ${Object.keys(ctx.contactFields).join(', ')}${custom})`;
  }
  return { kind: 'declared', name: field, def: ctx.contactFields[field]! };
}

function opsFor(field: TestFieldKind): readonly ContactFieldOp[] {
  if (field.kind === 'custom') return CONTACT_FIELD_OPS;
  const type = field.def.type;
  const ops: ContactFieldOp[] = ['eq', 'neq', 'exists', 'not_exists'];
  if (STRING_TYPES.includes(type)) ops.push('contains', 'not_contains');
  if (ORDERED_TYPES.includes(type)) ops.push('gt', 'gte', 'lt', 'lte');
  return ops;
}

function parseFieldTest(value: Record<string, unknown>, ctx: ConfigContext): ContactFieldTest | undefined {
  const before = ctx.issues.length;
  const r = reader(ctx, value);
  for (const key of Object.keys(value)) {
    if (key !== 'field' && key !== 'op' && key !== 'value') r.issue(key, 'is not part of a field test (field, op, value)');
  }
  const rawField = r.get('field');
  const rawOp = r.get('op');
  let field: TestFieldKind | undefined;
  if (typeof rawField !== 'string' || rawField === '') {
    r.issue('field', rawField === undefined ? 'is required' : 'must be a field name');
  } else {
    const resolved = resolveTestField(rawField, ctx);
    if (typeof resolved === 'string') r.issue('field', resolved);
    else field = resolved;
  }
  let op: ContactFieldOp | undefined;
  if (rawOp === undefined) r.issue('op', `is required: one of ${CONTACT_FIELD_OPS.join(', ')}`);
  else if (typeof rawOp !== 'string' || !(CONTACT_FIELD_OPS as readonly string[]).includes(rawOp)) {
    r.issue('op', `must be one of ${CONTACT_FIELD_OPS.join(', ')}`);
  } else op = rawOp as ContactFieldOp;
  if (!field || !op) return undefined;

  const allowed = opsFor(field);
  if (!allowed.includes(op)) {
    const type = field.kind === 'declared' ? field.def.type : 'custom';
    r.issue('op', `${op} does not apply to ${field.name} (type ${type}); use one of ${allowed.join(', ')}`);
    return undefined;
  }
  const raw = r.get('value');
  if (op === 'exists' || op === 'not_exists') {
    if (raw !== undefined) r.issue('value', `must be absent for ${op}`);
    return ctx.issues.length === before ? { field: rawField as string, op } : undefined;
  }
  if (raw === undefined) {
    r.issue('value', `is required for ${op}`);
    return undefined;
  }
  const parsed = parseTestValue(field, op, raw);
  if (typeof parsed === 'object') {
    r.issue('value', parsed.problem);
    return undefined;
  }
  return ctx.issues.length === before ? { field: rawField as string, op, value: parsed } : undefined;
}

type TestValue = NonNullable<ContactFieldTest['value']>;

function parseTestValue(field: TestFieldKind, op: ContactFieldOp, raw: unknown): TestValue | { problem: string } {
  const textProblem = (v: unknown) => checkText(v, { max: CONFIG_LIMITS.testValueMaxLength, nonBlank: true });
  if (field.kind === 'custom') {
    if (op === 'contains' || op === 'not_contains') {
      const problem = textProblem(raw);
      return problem ? { problem } : (raw as string);
    }
    if (op === 'gt' || op === 'gte' || op === 'lt' || op === 'lte') {
      return typeof raw === 'number' && Number.isFinite(raw) ? raw : { problem: `must be a number for ${op} on a custom field` };
    }
    if (typeof raw === 'boolean') return raw;
    if (typeof raw === 'number') return Number.isFinite(raw) ? raw : { problem: 'must be a finite number' };
    const problem = textProblem(raw);
    return problem ? { problem: typeof raw === 'string' ? problem : 'must be a string, number or boolean' } : (raw as string);
  }
  const def = field.def;
  switch (def.type) {
    case 'string':
    case 'text':
    case 'email':
    case 'url': {
      const problem = textProblem(raw);
      return problem ? { problem } : (raw as string);
    }
    case 'uuid':
      return typeof raw === 'string' && isUuid(raw) ? raw.toLowerCase() : { problem: 'must be a UUID' };
    case 'integer':
      return typeof raw === 'number' && Number.isSafeInteger(raw) ? raw : { problem: 'must be an integer' };
    case 'boolean':
      return typeof raw === 'boolean' ? raw : { problem: 'must be true or false' };
    case 'datetime': {
      const date = typeof raw === 'string' ? parseDateTime(raw) : undefined;
      return date ? date.toISOString() : { problem: 'must be an RFC 3339 date-time with offset' };
    }
    case 'enum': {
      const values = def.values ?? [];
      return typeof raw === 'string' && values.includes(raw) ? raw : { problem: `must be one of ${values.join(', ')}` };
    }
    case 'json':
      return { problem: 'cannot be tested: the field holds a JSON structure' };
  }
}
