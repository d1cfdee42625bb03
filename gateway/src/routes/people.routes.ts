import type * as grpc from '@grpc/grpc-js';
import { unary } from '@crm/kit';
import {
  MAX_POOL_MEMBERS_PER_CALL,
  contacts,
  organizations,
  parsePoolMembersBody,
  poolContacts,
  pools,
} from '@crm/people-contract';
import {
  type AddPoolMembersResponse__Output,
  type PoolMembersRequest,
  type RemovePoolMembersResponse__Output,
  loadPeople,
} from '@crm/proto';
import type { FastifyRequest } from 'fastify';
import type { ServiceContext } from '../contexts';
import { resourceClient } from '../clients';
import { type CustomRoute, noQuery, pathId, requireBody, upstreamCallOptions } from './resource.routes';

/**
 * `POST` and `DELETE /v1/pools/{id}/members` `{contact_ids: [...]}`: bulk membership changes of one
 * pool (at most 500 ids), answered `{data: {added|removed, already_members|not_members, not_found}}`
 * with the id lists and the pool's new contacts_count.
 */
function poolMemberRoutes(client: grpc.Client, deadlineMs: number): CustomRoute[] {
  const request = (http: FastifyRequest): PoolMembersRequest => {
    const poolId = pathId(http);
    noQuery(http);
    const contactIds = parsePoolMembersBody(requireBody(http));
    const principal = http.principal!;
    return { workspace_id: principal.workspaceId, pool_id: poolId, contact_ids: contactIds, actor_user_id: principal.userId ?? '' };
  };
  const ids = (description: string) => ({ type: 'array', items: { type: 'string', format: 'uuid' }, description });
  const operation = (verb: 'add' | 'remove', scope: string) => ({
    tags: ['pools'],
    operationId: verb === 'add' ? 'addPoolMembers' : 'removePoolMembers',
    summary: verb === 'add' ? 'Add contacts to a pool' : 'Remove contacts from a pool',
    description: `Up to ${MAX_POOL_MEMBERS_PER_CALL} contact ids in one transaction, one event. Requires scope \`${scope}\`.`,
    'x-required-scope': scope,
    security: [{ apiKey: [] }],
    parameters: [{ $ref: '#/components/parameters/Id' }, { $ref: '#/components/parameters/IdempotencyKey' }],
    requestBody: {
      required: true,
      content: {
        'application/json': {
          schema: {
            type: 'object',
            properties: { contact_ids: { ...ids('Contact ids.'), minItems: 1, maxItems: MAX_POOL_MEMBERS_PER_CALL } },
            required: ['contact_ids'],
            additionalProperties: false,
          },
        },
      },
    },
    responses: {
      '200': {
        description: 'What the call changed, and the pool\'s new contacts_count.',
        content: {
          'application/json': {
            schema: {
              type: 'object',
              properties: {
                data: {
                  type: 'object',
                  properties:
                    verb === 'add'
                      ? { added: ids('Became members.'), already_members: ids('Were members already.'), not_found: ids('No such contact in the workspace.'), contacts_count: { type: 'integer' } }
                      : { removed: ids('Were removed.'), not_members: ids('Were not members.'), not_found: ids('No such contact in the workspace.'), contacts_count: { type: 'integer' } },
                },
              },
              required: ['data'],
            },
          },
        },
      },
      '400': { $ref: '#/components/responses/BadRequest' },
      '404': { $ref: '#/components/responses/NotFound' },
      '422': { $ref: '#/components/responses/ValidationFailed' },
    },
  });
  return [
    {
      method: 'POST',
      path: '/:id/members',
      scope: 'pool_contacts:write',
      openapi: operation('add', 'pool_contacts:write'),
      handler: async (http, reply) => {
        const r = await unary<PoolMembersRequest, AddPoolMembersResponse__Output>(
          client,
          'AddPoolMembers',
          request(http),
          upstreamCallOptions(http, reply, deadlineMs),
        );
        return {
          data: { added: r.added, already_members: r.already_members, not_found: r.not_found, contacts_count: r.contacts_count },
        };
      },
    },
    {
      method: 'DELETE',
      path: '/:id/members',
      scope: 'pool_contacts:delete',
      openapi: operation('remove', 'pool_contacts:delete'),
      handler: async (http, reply) => {
        const r = await unary<PoolMembersRequest, RemovePoolMembersResponse__Output>(
          client,
          'RemovePoolMembers',
          request(http),
          upstreamCallOptions(http, reply, deadlineMs),
        );
        return {
          data: { removed: r.removed, not_members: r.not_members, not_found: r.not_found, contacts_count: r.contacts_count },
        };
      },
    },
  ];
}

/** The people context: its resources and the operations each offers. */
export const peopleContext: ServiceContext = {
  name: 'people',
  client: () => loadPeople().crm.people.v1.PeopleService,
  routes: (client, deadlineMs) => [
    { spec: contacts, client: resourceClient(client, contacts), operations: ['list', 'create', 'get', 'update', 'delete'], deadlineMs },
    {
      spec: organizations,
      client: resourceClient(client, organizations),
      operations: ['list', 'create', 'get', 'update', 'delete'],
      deadlineMs,
    },
    {
      spec: pools,
      client: resourceClient(client, pools),
      operations: ['list', 'create', 'get', 'update', 'delete'],
      deadlineMs,
      routes: poolMemberRoutes(client, deadlineMs),
    },
    // Memberships are never changed in place: PATCH answers 405.
    { spec: poolContacts, client: resourceClient(client, poolContacts), operations: ['list', 'create', 'get', 'delete'], deadlineMs },
  ],
};
