import { CrmError } from '@crm/kit';

/** A parsed form: each field's value, or its values when it was sent more than once. */
export type Form = Readonly<Record<string, string | readonly string[]>>;

/** Bytes a page's form may send at most: its largest (every scope checked) is about 3 KiB. */
export const FORM_BODY_LIMIT = 16 * 1024;
const MAX_FIELDS = 200;
/** The longest any single value may be; each field has its own, tighter rule after this. */
const MAX_VALUE = 4_096;
/** What a browser sends as application/x-www-form-urlencoded: every other byte percent-encoded. */
const URLENCODED = /^[\x20-\x7e]*$/;

const decode = (text: string): string => {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    throw CrmError.invalid('the form is not valid percent-encoded UTF-8');
  }
};

/**
 * application/x-www-form-urlencoded, strictly: a body that is not printable ASCII, or whose
 * percent-escapes are not UTF-8, is refused (400) rather than read with replacement characters.
 * The result has no prototype, so no field name can reach one.
 */
export function parseForm(body: string): Form {
  if (!URLENCODED.test(body)) throw CrmError.invalid('the form is not application/x-www-form-urlencoded: bytes outside printable ASCII must be percent-encoded');
  const form: Record<string, string | string[]> = Object.create(null);
  let fields = 0;
  for (const pair of body.split('&')) {
    if (!pair) continue;
    if (++fields > MAX_FIELDS) throw CrmError.invalid(`the form has more than ${MAX_FIELDS} fields`);
    const equals = pair.indexOf('=');
    const name = decode(equals < 0 ? pair : pair.slice(0, equals));
    const value = decode(equals < 0 ? '' : pair.slice(equals + 1));
    if (value.length > MAX_VALUE) throw CrmError.invalid(`the form's field "${name.slice(0, 40)}" is longer than ${MAX_VALUE} characters`);
    const earlier = form[name];
    if (earlier === undefined) form[name] = value;
    else if (Array.isArray(earlier)) earlier.push(value);
    else form[name] = [earlier as string, value];
  }
  return form;
}

/** The request's form, or an empty one (a GET, or a POST without a body). */
export const formOf = (body: unknown): Form => (body && typeof body === 'object' ? (body as Form) : Object.create(null));

/** A field sent at most once: its value, '' when absent. Sent twice, the form is not one of ours: 400. */
export function field(form: Form, name: string): string {
  const value = form[name];
  if (value === undefined) return '';
  if (typeof value !== 'string') throw CrmError.invalid(`the form's field "${name}" was sent more than once`);
  return value;
}

/** A field that may be sent several times (checkboxes sharing a name). */
export function fields(form: Form, name: string): string[] {
  const value = form[name];
  if (value === undefined) return [];
  return typeof value === 'string' ? [value] : [...value];
}
