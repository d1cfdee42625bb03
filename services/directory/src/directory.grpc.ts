import { integrations, users } from '@crm/directory-contract';
import { type GrpcServiceBinding, type Logger, type Page, bindService, fromListRequest, fromStruct, requireUuid, toProtoValue, toStruct } from '@crm/kit';
import { loadDirectory } from '@crm/proto';
import type { AdminApiKeyListing, ApiKeyListing } from './api-keys';
import type { DirectoryService } from './directory.service';
import type { Integration } from './integrations';
import type { Session } from './sessions';

/** proto3 `optional` fields are absent rather than null on the wire. */
function withoutNulls<T extends object>(record: T): { [K in keyof T]: Exclude<T[K], null> } {
  return Object.fromEntries(Object.entries(record).filter(([, v]) => v !== null && v !== undefined)) as {
    [K in keyof T]: Exclude<T[K], null>;
  };
}

const orUndefined = (value: string | undefined) => (value ? value : undefined);

/**
 * An integration as its message carries it: the config as a Value (a JSON object) in `config`
 * (field 11) and, the same value, in `legacy_config` (field 10), which callers of the previous
 * release read (directory.proto; proto/README.md, Pending).
 */
const integrationMessage = (integration: Integration) => {
  const config = toProtoValue(integration.config);
  return { ...integration, config, legacy_config: config };
};

/** A page of records as a List…Response. */
const pageMessage = (page: Page, toMessage: (record: Record<string, unknown>) => object) => ({
  data: page.data.map(toMessage),
  page: { next_cursor: page.nextCursor ?? '', has_more: page.hasMore },
});

/** A session as its message carries it: the id only in a sign-in's answer. */
const sessionMessage = (session: Session) => ({
  ...session,
  session_id: session.session_id ?? '',
  user: withoutNulls(session.user),
});

/** A listed key: absent values as proto3's empty strings. */
const apiKeyMessage = (key: ApiKeyListing) => ({
  ...key,
  name: key.name ?? '',
  user_id: key.user_id ?? '',
  last_used_at: key.last_used_at ?? '',
});

/** A key as the operator lists it: `revoked_at` empty for an active one. */
const adminApiKeyMessage = (key: AdminApiKeyListing) => ({ ...apiKeyMessage(key), revoked_at: key.revoked_at ?? '' });

export function directoryGrpcBinding(service: DirectoryService, log: Logger): GrpcServiceBinding {
  // The operator's command line names a user by id alone (directory.proto, DeactivateUser and
  // IssuePasswordToken); a call that names the workspace is held to it.
  const workspaceOf = async (workspaceId: string, userId: string) => workspaceId || service.workspaceOfUser(userId);
  return bindService(
    loadDirectory().crm.directory.v1.DirectoryService.service,
    {
      async Authenticate(request) {
        const principal = await service.authenticate(request.key);
        return { ...principal, user_id: principal.user_id ?? '' };
      },
      CreateWorkspace: async (request) => service.createWorkspace({ name: request.name }),
      GetWorkspace: async (request) => service.getWorkspace(request.id),
      CreateUser: async (request) =>
        withoutNulls(
          await service.createUser({
            workspace_id: request.workspace_id,
            email: request.email,
            full_name: request.full_name,
            role: request.role,
            svc_uid: orUndefined(request.svc_uid),
          }),
        ),
      GetUser: async (request) => withoutNulls(await service.getUser(request.workspace_id, request.id)),
      ListUsers: async (request) =>
        pageMessage(await service.listUsers(requireUuid(request.workspace_id, 'workspace_id'), fromListRequest(users, request)), withoutNulls),
      CreateApiKey: async (request) =>
        service.createApiKey({
          workspace_id: request.workspace_id,
          scopes: request.scopes,
          env: orUndefined(request.env),
          user_id: orUndefined(request.user_id),
          name: orUndefined(request.name),
        }),
      RevokeApiKey: async (request) => service.revokeApiKey(request.id),
      CreateIntegration: async (request) =>
        withoutNulls(
          await service.createIntegration({
            workspace_id: request.workspace_id,
            type: request.type,
            name: request.name,
            secret: request.secret,
            svc_uid: orUndefined(request.svc_uid),
            config: request.config ? fromStruct(request.config) : undefined,
          }).then(integrationMessage),
        ),
      GetIntegration: async (request) => withoutNulls(integrationMessage(await service.getIntegration(request.workspace_id, request.id))),
      ListIntegrations: async (request) =>
        pageMessage(
          await service.listIntegrations(requireUuid(request.workspace_id, 'workspace_id'), fromListRequest(integrations, request)),
          (record) => withoutNulls(integrationMessage(record as unknown as Integration)),
        ),
      async GetSendingIntegration(request) {
        const found = await service.getSendingIntegration(request.workspace_id);
        if (!found) return { found: false };
        return {
          found: true,
          integration_id: found.integration_id,
          config: toStruct({ ...found.config }),
          password: found.password,
          updated_at: found.updated_at,
        };
      },
      DeactivateUser: async (request) => withoutNulls(await service.deactivateUser(await workspaceOf(request.workspace_id, request.id), request.id)),
      IssuePasswordToken: async (request) =>
        service.issuePasswordToken({ workspace_id: await workspaceOf(request.workspace_id, request.user_id), user_id: request.user_id }),
      CheckPasswordToken: async (request) => service.checkPasswordToken(request.token),
      SetPassword: async (request) =>
        service.setPassword({ password: request.password, token: orUndefined(request.token), session_id: orUndefined(request.session_id) }),
      SignIn: async (request) => sessionMessage(await service.signIn({ email: request.email, password: request.password })),
      GetSession: async (request) => sessionMessage(await service.getSession(request.session_id)),
      EndSession: async (request) => service.endSession(request.session_id),
      ListSessionApiKeys: async (request) => ({ data: (await service.listSessionApiKeys(request.session_id)).map(apiKeyMessage) }),
      CreateSessionApiKey: async (request) =>
        service.createSessionApiKey({ session_id: request.session_id, name: request.name, env: request.env, scopes: request.scopes }),
      RevokeSessionApiKey: async (request) => service.revokeSessionApiKey(request.session_id, request.id),
      async ListWorkspaces(request) {
        const page = await service.listWorkspaces({ limit: request.limit, after: orUndefined(request.after) });
        return { data: page.data, next_after: page.next_after ?? '' };
      },
      ListApiKeys: async (request) => ({ data: (await service.listApiKeys(request.workspace_id)).map(adminApiKeyMessage) }),
    },
    log,
  );
}
