import { type ProtoValue, fromProtoValue, toStruct } from '@crm/kit';
import { type ParsedArgs, UsageError, rejectUnknownOptions, requireOption } from './args';

/** `--config '<json>'`: the integration's non-secret settings, a JSON object. */
function parseConfig(text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new UsageError('--config must be a JSON object, e.g. \'{"host":"smtp.example.com","port":587}\'');
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new UsageError('--config must be a JSON object');
  return value as Record<string, unknown>;
}
import { directoryCaller } from './directory-client';

/**
 * An Integration message as the command prints it. `config` is field 11; a directory of the
 * previous release sets only field 10 (`legacy_config`), read when 11 is absent. The legacy field
 * itself is never printed: the output keeps one `config`, as before.
 */
export function integrationOutput(integration: Record<string, unknown>): Record<string, unknown> {
  const { legacy_config: legacy, ...fields } = integration;
  const config = (fields.config ?? legacy) as ProtoValue | null | undefined;
  return { ...fields, config: config ? fromProtoValue(config) : {}, svc_uid: fields.svc_uid ?? null, status_reason: fields.status_reason ?? null };
}

/** The page size `crm admin workspace list` asks the directory for (directory.proto, ListWorkspaces). */
const WORKSPACE_PAGE = { default: 100, max: 1000 };

/** A listed key as the command prints it: proto3's empty strings as null. */
export function apiKeyOutput(key: Record<string, unknown>): Record<string, unknown> {
  const orNull = (value: unknown) => (value === '' || value === undefined ? null : value);
  return {
    id: key.id,
    workspace_id: key.workspace_id,
    name: orNull(key.name),
    prefix: key.prefix,
    scopes: key.scopes ?? [],
    env: key.env,
    user_id: orNull(key.user_id),
    created_by_name: key.created_by_name ?? '',
    created_at: key.created_at,
    last_used_at: orNull(key.last_used_at),
    revoked_at: orNull(key.revoked_at),
  };
}

/**
 * `crm admin ...`: each command prints JSON on stdout, one object per line: a command that creates
 * or changes something prints one, a `list` prints one per record (so `jq`, `grep` and `wc -l`
 * read it as it comes); failures exit non-zero with the reason on stderr (the caller prints it).
 */
export async function runAdmin(args: ParsedArgs, directoryAddr: string): Promise<void> {
  const [noun, verb, ...rest] = args.positional;
  const directory = directoryCaller(directoryAddr);
  const print = (value: unknown): void => {
    process.stdout.write(`${JSON.stringify(value)}\n`);
  };
  const noExtra = () => {
    if (rest.length) throw new UsageError(`unexpected argument ${rest[0]}`);
  };
  try {
    switch (`${noun} ${verb}`) {
      case 'workspace create': {
        noExtra();
        rejectUnknownOptions(args, ['name']);
        const workspace = await directory.call<{ id: string; name: string }>('CreateWorkspace', { name: requireOption(args, 'name') });
        return print({ id: workspace.id, name: workspace.name });
      }
      case 'workspace list': {
        noExtra();
        rejectUnknownOptions(args, ['limit']);
        const limit = args.options.limit === undefined ? WORKSPACE_PAGE.default : Number(args.options.limit);
        if (!Number.isInteger(limit) || limit < 1 || limit > WORKSPACE_PAGE.max) throw new UsageError(`--limit must be an integer from 1 to ${WORKSPACE_PAGE.max}`);
        let after = '';
        do {
          const page = await directory.call<{ data: { id: string; name: string; created_at: string }[]; next_after: string }>('ListWorkspaces', { limit, after });
          for (const workspace of page.data) print({ id: workspace.id, name: workspace.name, created_at: workspace.created_at });
          after = page.next_after;
        } while (after);
        return;
      }
      case 'user create': {
        noExtra();
        rejectUnknownOptions(args, ['workspace', 'email', 'name', 'role']);
        const user = await directory.call<Record<string, unknown>>('CreateUser', {
          workspace_id: requireOption(args, 'workspace'),
          email: requireOption(args, 'email'),
          full_name: requireOption(args, 'name'),
          role: requireOption(args, 'role'),
        });
        return print({ ...user, svc_uid: user.svc_uid ?? null });
      }
      case 'user invite': {
        // A one-time link to set the password (an invite, or a reset of a forgotten one), 24 h.
        rejectUnknownOptions(args, []);
        const userId = rest[0];
        if (!userId || rest.length > 1) throw new UsageError('usage: crm admin user invite <user-id>');
        const invite = await directory.call<{ user_id: string; link: string; expires_at: string; mailed: boolean }>('IssuePasswordToken', {
          user_id: userId,
        });
        return print({ user_id: invite.user_id, link: invite.link, expires_at: invite.expires_at, mailed: invite.mailed });
      }
      case 'user deactivate': {
        // Ends the user's sessions and revokes the keys that act for them.
        rejectUnknownOptions(args, []);
        const userId = rest[0];
        if (!userId || rest.length > 1) throw new UsageError('usage: crm admin user deactivate <user-id>');
        const user = await directory.call<Record<string, unknown>>('DeactivateUser', { id: userId });
        return print({ ...user, svc_uid: user.svc_uid ?? null });
      }
      case 'key create': {
        noExtra();
        rejectUnknownOptions(args, ['workspace', 'scopes', 'env', 'name']);
        const scopes = requireOption(args, 'scopes').split(',').map((s) => s.trim()).filter(Boolean);
        const key = await directory.call<{ id: string; key: string; scopes: string[]; workspace_id: string }>('CreateApiKey', {
          workspace_id: requireOption(args, 'workspace'),
          scopes,
          env: args.options.env ?? 'live',
          name: args.options.name ?? '',
        });
        return print({ id: key.id, key: key.key, scopes: key.scopes, workspace_id: key.workspace_id });
      }
      case 'key list': {
        noExtra();
        rejectUnknownOptions(args, ['workspace']);
        const keys = await directory.call<{ data?: Record<string, unknown>[] }>('ListApiKeys', { workspace_id: requireOption(args, 'workspace') });
        for (const key of keys.data ?? []) print(apiKeyOutput(key));
        return;
      }
      case 'key revoke': {
        rejectUnknownOptions(args, []);
        const id = rest[0];
        if (!id || rest.length > 1) throw new UsageError('usage: crm admin key revoke <key-id>');
        const revoked = await directory.call<{ id: string; revoked: boolean }>('RevokeApiKey', { id });
        return print({ id: revoked.id, revoked: revoked.revoked });
      }
      case 'integration create': {
        noExtra();
        rejectUnknownOptions(args, ['workspace', 'type', 'name', 'secret', 'config']);
        const integration = await directory.call<Record<string, unknown>>('CreateIntegration', {
          workspace_id: requireOption(args, 'workspace'),
          type: requireOption(args, 'type'),
          name: requireOption(args, 'name'),
          secret: requireOption(args, 'secret'),
          ...(args.options.config === undefined ? {} : { config: toStruct(parseConfig(args.options.config)) }),
        });
        return print(integrationOutput(integration));
      }
      default:
        throw new UsageError(`unknown admin command "${[noun, verb].filter(Boolean).join(' ')}"`);
    }
  } finally {
    directory.close();
  }
}
