import * as grpc from '@grpc/grpc-js';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { loadPeople } from '@crm/proto';
import { type RunningGrpcServer, createClient, implement, startGrpcServer, unaryWithMetadata } from './grpc';
import { createLogger } from './logger';

setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

const PeopleService = loadPeople().crm.people.v1.PeopleService;
const contact = (n: number) => ({ id: `c-${n}`, workspace_id: 'w', first_name: `name ${n}`.repeat(20) });

describe('unary calls', () => {
  let server: RunningGrpcServer;
  let client: grpc.Client;

  beforeAll(async () => {
    server = await startGrpcServer('127.0.0.1:0', [
      {
        name: 'crm.people.v1.PeopleService',
        definition: PeopleService.service,
        implementation: implement(
          {
            ListContacts: async () => {
              return { data: Array.from({ length: 50 }, (_, n) => contact(n)) };
            },
          } as never,
          createLogger('test', 'silent'),
        ),
      },
    ]);
    client = new PeopleService(server.address, grpc.credentials.createInsecure());
  });

  afterAll(async () => {
    client.close();
    await server.shutdown();
  });

  test('an answer is not kept by its finished call', async () => {
    // grpc-js's call objects stay reachable (from the HTTP/2 stream's handle) long after the call:
    // here the test keeps them, and the answer must still be free to go.
    const calls: unknown[] = [];
    const makeUnaryRequest = client.makeUnaryRequest.bind(client);
    const spy = jest.spyOn(client, 'makeUnaryRequest').mockImplementation(((...args: Parameters<typeof makeUnaryRequest>) => {
      const call = makeUnaryRequest(...args);
      calls.push(call);
      return call;
    }) as never);
    try {
      // Each answer is held by a function that has returned: nothing of the test keeps it.
      const call = async (deserialize?: (bytes: Buffer) => unknown) => {
        const { response } = await unaryWithMetadata<unknown, object>(client, 'ListContacts', { workspace_id: 'w', limit: 50 }, deserialize ? { deserialize } : {});
        expect(response).toBeTruthy();
        return new WeakRef(response);
      };
      const answers = [await call(), await call((bytes) => ({ copy: Buffer.from(bytes) })), await call()];
      expect(calls).toHaveLength(3);
      // WeakRefs hold their targets until the current job ends.
      await new Promise((resolve) => setImmediate(resolve));
      collectGarbage();
      expect(answers.map((answer) => answer.deref() === undefined)).toEqual([true, true, true]);
    } finally {
      spy.mockRestore();
    }
  });
});

describe('a target of several addresses', () => {
  const servers: RunningGrpcServer[] = [];
  const served = [0, 0];

  beforeAll(async () => {
    for (const n of [0, 1]) {
      servers.push(
        await startGrpcServer('127.0.0.1:0', [
          {
            name: 'crm.people.v1.PeopleService',
            definition: PeopleService.service,
            implementation: implement(
              {
                ListContacts: async () => {
                  served[n]!++;
                  return { data: [] };
                },
              } as never,
              createLogger('test', 'silent'),
            ),
          },
        ]),
      );
    }
  });
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.shutdown()));
  });

  test('calls take turns over every address (round robin), as over the pods a headless Service names', async () => {
    const client = createClient(PeopleService, `ipv4:${servers.map((s) => s.address).join(',')}`);
    try {
      for (let i = 0; i < 20; i++) await unaryWithMetadata<unknown, object>(client, 'ListContacts', { workspace_id: 'w', limit: 1 });
      // pick_first, grpc-js's default, would send all twenty to the first address.
      expect(served[0]! + served[1]!).toBe(20);
      expect(Math.min(...served)).toBeGreaterThanOrEqual(8);
    } finally {
      client.close();
    }
  });
});
