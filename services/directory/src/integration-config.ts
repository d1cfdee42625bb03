import { type FieldIssue, emailAddressProblem } from '@crm/kit';

/**
 * The non-secret settings of an integration, checked per type when it is created. An `smtp`
 * integration is the workspace's own mail server (gateway/README.md, Messaging, "Providers"): its
 * password is the integration's secret, everything else lives here. Other types keep any flat JSON
 * object.
 */
export interface SmtpConfig {
  host: string;
  /** Default 587 (submission), or 465 when `secure`. */
  port: number;
  /** Implicit TLS (smtps); otherwise STARTTLS when the server offers it. */
  secure: boolean;
  username?: string;
  /** The sender when a send names none. */
  from_email?: string;
  from_name?: string;
  /** Envelope sender bounces+{id}@MAIL_DOMAIN (default); false sends bounces to from_email. */
  verp: boolean;
}

const HOST = /^[A-Za-z0-9.-]{1,253}$|^\[[0-9A-Fa-f:.]+\]$/;
const MAX_CONFIG_BYTES = 8_192;

type Checker = (value: unknown) => string | undefined;
const SMTP_KEYS: Record<string, Checker> = {
  host: (v) => (typeof v === 'string' && HOST.test(v) ? undefined : 'must be a host name or an IP address'),
  port: (v) => (Number.isInteger(v) && (v as number) >= 1 && (v as number) <= 65_535 ? undefined : 'must be a port number (1 to 65535)'),
  secure: (v) => (typeof v === 'boolean' ? undefined : 'must be true or false'),
  username: (v) => (typeof v === 'string' && v.length > 0 && v.length <= 255 ? undefined : 'must be 1 to 255 characters'),
  from_email: (v) => (typeof v === 'string' ? emailAddressProblem(v) : 'must be an email address'),
  from_name: (v) => (typeof v === 'string' && v.length <= 255 && !/[\r\n]/.test(v) ? undefined : 'must be one line of at most 255 characters'),
  verp: (v) => (typeof v === 'boolean' ? undefined : 'must be true or false'),
};

/** Validates `config` for an integration of `type`, recording issues as `config.<key>`. */
export function integrationConfig(issues: FieldIssue[], type: string, config: unknown): Record<string, unknown> {
  if (config === undefined || config === null) {
    if (type === 'smtp') issues.push({ field: 'config.host', message: 'is required for an smtp integration' });
    return {};
  }
  if (typeof config !== 'object' || Array.isArray(config)) {
    issues.push({ field: 'config', message: 'must be a JSON object' });
    return {};
  }
  if (JSON.stringify(config).length > MAX_CONFIG_BYTES) {
    issues.push({ field: 'config', message: `must be at most ${MAX_CONFIG_BYTES} bytes of JSON` });
    return {};
  }
  const entries = Object.entries(config as Record<string, unknown>);
  if (type !== 'smtp') return Object.fromEntries(entries);
  for (const [key, value] of entries) {
    const check = Object.hasOwn(SMTP_KEYS, key) ? SMTP_KEYS[key]! : undefined;
    if (!check) issues.push({ field: `config.${key}`, message: `is not a setting of an smtp integration; use ${Object.keys(SMTP_KEYS).join(', ')}` });
    else {
      const problem = check(value);
      if (problem) issues.push({ field: `config.${key}`, message: problem });
    }
  }
  if (!entries.some(([key]) => key === 'host')) issues.push({ field: 'config.host', message: 'is required for an smtp integration' });
  return Object.fromEntries(entries);
}

/** A stored smtp config with its defaults, or undefined when it cannot be used. */
export function parseSmtpConfig(config: Record<string, unknown>): SmtpConfig | undefined {
  const issues: FieldIssue[] = [];
  integrationConfig(issues, 'smtp', config);
  // A sender stored before the address rule took RFC 5321's limits keeps sending as it did:
  // `crm check addresses` reports it, and nothing changes it silently.
  const storedSender = (issue: FieldIssue) => issue.field === 'config.from_email' && typeof config.from_email === 'string';
  if (issues.some((issue) => !storedSender(issue))) return undefined;
  const secure = config.secure === true;
  return {
    host: config.host as string,
    port: (config.port as number | undefined) ?? (secure ? 465 : 587),
    secure,
    username: config.username as string | undefined,
    from_email: config.from_email as string | undefined,
    from_name: config.from_name as string | undefined,
    verp: config.verp !== false,
  };
}
