import type { ServiceClient } from '@crm/kit';
import { MAX_POOL_MEMBERS_PER_CALL, parsePoolMembersBody } from '@crm/people-contract';
import type { PeopleServiceDefinition, PoolMembersRequest } from '@crm/proto';
import type { FastifyRequest } from 'fastify';
import { COUNT, idList } from '../openapi-schemas';
import { type CustomRoute, noQuery, pathId, requireBody, upstreamCallOptions } from './resource.routes';

/**
 * `POST` and `DELETE /v1/pools/{id}/members` `{contact_ids: [...]}`: bulk membership changes of one
 * pool (at most 500 ids), answered `{data: {added|removed, already_members|not_members, not_found}}`
 * with the id lists and the pool's new contacts_count.
 */
export function poolMemberRoutes(client: ServiceClient<PeopleServiceDefinition>, deadlineMs: number): CustomRoute[] {
  const request = (http: FastifyRequest): PoolMembersRequest => {
    const poolId = pathId(http);
    noQuery(http);
    const contactIds = parsePoolMembersBody(requireBody(http));
    const principal = http.principal!;
    return { workspace_id: principal.workspaceId, pool_id: poolId, contact_ids: contactIds, actor_user_id: principal.userId ?? '' };
  };
  const ids = (description: string) => idList(MAX_POOL_MEMBERS_PER_CALL, description);
  const operation = (verb: 'add' | 'remove') => ({
    tags: ['pools'],
    operationId: verb === 'add' ? 'addPoolMembers' : 'removePoolMembers',
    summary: verb === 'add' ? 'Add contacts to a pool' : 'Remove contacts from a pool',
    description: `Up to ${MAX_POOL_MEMBERS_PER_CALL} contact ids in one transaction, one event.`,
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
                      ? { added: ids('Became members.'), already_members: ids('Were members already.'), not_found: ids('No such contact in the workspace.'), contacts_count: COUNT }
                      : { removed: ids('Were removed.'), not_members: ids('Were not members.'), not_found: ids('No such contact in the workspace.'), contacts_count: COUNT },
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
      openapi: operation('add'),
      handler: async (http, reply) => {
        const r = await client.call('AddPoolMembers', request(http), upstreamCallOptions(http, reply, deadlineMs));
        return {
          data: { added: r.added, already_members: r.already_members, not_found: r.not_found, contacts_count: r.contacts_count },
        };
      },
    },
    {
      method: 'DELETE',
      path: '/:id/members',
      scope: 'pool_contacts:delete',
      openapi: operation('remove'),
      handler: async (http, reply) => {
        const r = await client.call('RemovePoolMembers', request(http), upstreamCallOptions(http, reply, deadlineMs));
        return {
          data: { removed: r.removed, not_members: r.not_members, not_found: r.not_found, contacts_count: r.contacts_count },
        };
      },
    },
  ];
}
