// The one way the SDK's types are made from an OpenAPI document, shared by the build
// (generate-types.mjs) and the drift check (src/generated-types.test.ts), so both produce the same text.
import openapiTS, { astToString } from 'openapi-typescript';

export const HEADER = [
  '/**',
  ' * Generated from the OpenAPI document the gateway serves at /openapi.json (`describeApi(CONTEXTS)`,',
  ' * the same `buildOpenApi` call `startGateway` makes) by openapi-typescript. Do not edit: the build',
  ' * rewrites it (packages/sdk/scripts/generate-types.mjs), and a test fails when it is not committed.',
  ' */',
  '',
].join('\n');

/** The TypeScript source of `paths`, `components` and `operations` for an OpenAPI 3.1 document. */
export async function typesFromDocument(document) {
  // A deep copy: openapi-typescript annotates the object it is given.
  // emptyObjectsUnknown: an object schema that declares no properties (a flow node's `config`)
  // takes any properties, as JSON Schema reads it, not none.
  const ast = await openapiTS(structuredClone(document), { silent: true, emptyObjectsUnknown: true });
  return HEADER + astToString(ast);
}
