import type { ServiceClient } from '@crm/kit';
import { MAX_POOL_MEMBERS_PER_CALL, parsePoolMembersBody } from '@crm/people-contract';
import type { PeopleServiceDefinition, PoolMembersRequest } from '@crm/proto';
import type { FastifyRequest } from 'fastify';
import { exampleUuid } from '../openapi-examples';
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
    description:
      verb === 'add'
        ? `Adds up to ${MAX_POOL_MEMBERS_PER_CALL} contacts to the pool in one transaction (one event); use it to build a pool before enrolling it in a flow. ` +
          'Ids that are members already, or that name no contact of the workspace, are listed, not refused. Repeat ids count once.'
        : `Removes up to ${MAX_POOL_MEMBERS_PER_CALL} contacts from the pool in one transaction (one event); the contacts themselves stay. ` +
          'Ids that are not members, or that name no contact, are listed, not refused.',
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
          example: { contact_ids: [exampleUuid('contact'), exampleUuid('contact-2')] },
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
                  description: 'What the call did with each id.',
                  properties:
                    verb === 'add'
                      ? { added: ids('Became members.'), already_members: ids('Were members already.'), not_found: ids('No such contact in the workspace.'), contacts_count: { ...COUNT, description: "The pool's member count after the call." } }
                      : { removed: ids('Were removed.'), not_members: ids('Were not members.'), not_found: ids('No such contact in the workspace.'), contacts_count: { ...COUNT, description: "The pool's member count after the call." } },
                },
              },
              required: ['data'],
            },
            example: {
              data:
                verb === 'add'
                  ? { added: [exampleUuid('contact')], already_members: [exampleUuid('contact-2')], not_found: [], contacts_count: 43 }
                  : { removed: [exampleUuid('contact')], not_members: [exampleUuid('contact-2')], not_found: [], contacts_count: 41 },
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
