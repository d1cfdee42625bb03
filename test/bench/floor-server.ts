/**
 * The floor of the gateway benchmark: the least an HTTP front written in Node can add to a gRPC
 * call on this machine. Plain `node:http`, the same kit gRPC client the gateway uses, and nothing
 * else: no authentication, rate limits, spans, validation or envelope. `gateway.bench.ts` runs it as
 * its own process, so it pays the same hops and system calls as the gateway.
 *
 * Usage: node floor-server.js <port> <people address> <workspace id>. Prints "listening" when ready.
 *   GET /contacts/<id>  → GetContact
 *   GET /contacts       → ListContacts, 50 a page
 */
import * as http from 'node:http';
import { createClient, unary } from '@crm/kit';
import { loadPeople } from '@crm/proto';

const [port, peopleAddress, workspaceId] = process.argv.slice(2);
if (!port || !peopleAddress || !workspaceId) throw new Error('usage: floor-server <port> <people address> <workspace id>');
const client = createClient(loadPeople().crm.people.v1.PeopleService, peopleAddress);

function call(url: string): Promise<unknown> {
  if (url === '/contacts') return unary(client, 'ListContacts', { workspace_id: workspaceId, limit: 50 });
  if (url.startsWith('/contacts/')) return unary(client, 'GetContact', { workspace_id: workspaceId, id: url.slice('/contacts/'.length) });
  return Promise.reject(new Error(`no route ${url}`));
}

const server = http.createServer((request, response) => {
  call(request.url ?? '').then(
    (data) => response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ data })),
    (error: Error) => response.writeHead(500, { 'content-type': 'text/plain' }).end(error.message),
  );
});
server.listen(Number(port), '127.0.0.1', () => process.stdout.write('listening\n'));
process.on('SIGTERM', () => {
  client.close();
  server.close();
});
