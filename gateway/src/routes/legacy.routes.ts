import { CrmError, RENAMED_RESOURCES } from '@crm/kit';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { sendError } from '../errors';

/** Old paths and anything beneath them answer 404 naming the replacement, for every method. */
export function registerLegacyPaths(app: FastifyInstance, prefix: string): void {
  for (const [old, replacement] of Object.entries(RENAMED_RESOURCES)) {
    const handler = async (request: FastifyRequest, reply: FastifyReply) => {
      const path = request.url.split('?')[0]!;
      const renamed = path.replace(`${prefix}/${old}`, `${prefix}/${replacement}`);
      return sendError(
        request,
        reply,
        new CrmError('not_found', `${prefix}/${old} was removed in API 2.0.0; use ${renamed}`, { replacement: renamed }),
      );
    };
    app.all(`${prefix}/${old}`, handler);
    app.all(`${prefix}/${old}/*`, handler);
  }
}
