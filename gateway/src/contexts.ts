import type * as grpc from '@grpc/grpc-js';
import type { ResourceRouteOptions } from './routes/resource.routes';
import { peopleContext } from './routes/people.routes';
import { activitiesContext } from './routes/activities.routes';

/**
 * A bounded context the gateway fronts: its gRPC client and the resource routes it serves. Adding a
 * context is a file in routes/ and one entry below; its address comes from `<NAME>_ADDR`.
 */
export interface ServiceContext {
  name: string;
  client(): new (address: string, credentials: grpc.ChannelCredentials, options?: grpc.ChannelOptions) => grpc.Client;
  routes(client: grpc.Client, deadlineMs: number): ResourceRouteOptions[];
}

export const CONTEXTS: readonly ServiceContext[] = [peopleContext, activitiesContext];
