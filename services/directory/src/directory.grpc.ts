import { integrations, users } from '@crm/directory-contract';
import { type GrpcServiceBinding, type Logger, type Page, bindService, fromListRequest, fromStruct, requireUuid, toProtoValue, toStruct } from '@crm/kit';
import { loadDirectory } from '@crm/proto';
import type { DirectoryService } from './directory.service';
import type { Integration } from './integrations';

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

export function directoryGrpcBinding(service: DirectoryService, log: Logger): GrpcServiceBinding {
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
    },
    log,
  );
}
