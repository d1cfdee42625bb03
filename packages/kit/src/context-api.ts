import type * as grpc from '@grpc/grpc-js';
import type { ResourceSpec } from './resource';

/**
 * A bounded context's public surface, declared once in its contract package and read by both
 * sides: the gateway registers routes and calls the service from it; the service binds its stores
 * to the same RPCs. A route is a resource declaration and the operations it offers; the RPC of
 * each operation is named after the resource (`ListContacts`, `GetContact`, ...) and must exist in
 * the generated service definition, or the declaration does not compile.
 */
export type Operation = 'list' | 'get' | 'create' | 'update' | 'delete';

type Pascal<S extends string> = S extends `${infer Head}_${infer Tail}` ? `${Capitalize<Head>}${Pascal<Tail>}` : Capitalize<S>;

/** The RPC that serves operation `O` of resource `R`. */
export type RpcName<R extends ResourceSpec, O extends Operation> = O extends 'list'
  ? `List${Pascal<R['name']>}`
  : `${Capitalize<O>}${Pascal<R['singular']>}`;

export const pascal = (snake: string): string => snake.replace(/(^|_)([a-z])/g, (_m, _s, c: string) => c.toUpperCase());

export function rpcName<R extends ResourceSpec, O extends Operation>(spec: R, operation: O): RpcName<R, O> {
  const noun = operation === 'list' ? pascal(spec.name) : pascal(spec.singular);
  return `${pascal(operation)}${noun}` as RpcName<R, O>;
}

export interface ResourceRoute<R extends ResourceSpec = ResourceSpec, O extends Operation = Operation> {
  readonly spec: R;
  readonly operations: readonly O[];
  /** The scope resource its operations need, when it is not the resource's own (enrollments: flows). */
  readonly scope?: string;
}

/** One line of a context's route table: a declaration and the operations it offers. */
export function route<const R extends ResourceSpec, const O extends Operation>(
  spec: R,
  operations: readonly O[],
  options: { scope?: string } = {},
): ResourceRoute<R, O> {
  return { spec, operations, ...options };
}

/** The RPC names a list of routes needs. */
export type RouteRpcs<T> = T extends ResourceRoute<infer R, infer O> ? RpcName<R, O> : never;

// The message types of a generated method definition (@grpc/proto-loader's MethodDefinition).
export type RequestIn<M> = M extends { requestSerialize: (value: infer R) => Buffer } ? R : never;
export type RequestOut<M> = M extends { requestDeserialize: (bytes: Buffer) => infer R } ? R : never;
export type ResponseIn<M> = M extends { responseSerialize: (value: infer R) => Buffer } ? R : never;
export type ResponseOut<M> = M extends { responseDeserialize: (bytes: Buffer) => infer R } ? R : never;

/** A generated client constructor, carrying its service definition. */
export type ServiceConstructor<D> = (new (address: string, credentials: grpc.ChannelCredentials, options?: grpc.ChannelOptions) => grpc.Client) & {
  service: D;
};

/** Refuses, at compile time, a route table naming an RPC the service definition lacks. */
type CheckRpcs<D, Routes extends readonly ResourceRoute[]> = [Exclude<RouteRpcs<Routes[number]>, keyof D>] extends [never]
  ? unknown
  : { missing_rpcs_in_proto: Exclude<RouteRpcs<Routes[number]>, keyof D> };

export interface ContextApi<D = grpc.ServiceDefinition, Routes extends readonly ResourceRoute[] = readonly ResourceRoute[]> {
  /** The context's name: its component, its `<NAME>_ADDR`. */
  readonly name: string;
  /** The generated client constructor; `.service` is the definition both sides use. */
  readonly service: () => ServiceConstructor<D>;
  readonly routes: Routes;
}

export function defineContextApi<D extends grpc.ServiceDefinition, const Routes extends readonly ResourceRoute[]>(api: {
  name: string;
  service: () => ServiceConstructor<D>;
  routes: Routes & CheckRpcs<D, Routes>;
}): ContextApi<D, Routes> {
  return api;
}

/** The fully-qualified gRPC service name of a definition (`crm.people.v1.PeopleService`), for health. */
export function serviceNameOf(definition: grpc.ServiceDefinition): string {
  const first = Object.values(definition)[0];
  if (!first) throw new Error('a service definition without methods');
  return first.path.split('/')[1]!;
}
