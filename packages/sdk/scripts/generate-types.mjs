#!/usr/bin/env node
// Build step: writes src/generated/openapi.ts from the document the gateway serves. The gateway's
// own code builds it (its compiled dist, which turbo builds first: packages/sdk/turbo.json), with no
// server started: route declarations only close over their gRPC client, so none is needed.
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { typesFromDocument } from './openapi-types.mjs';

const target = fileURLToPath(new URL('../src/generated/openapi.ts', import.meta.url));
const { CONTEXTS, describeApi } = createRequire(import.meta.url)('@crm/gateway');
const text = await typesFromDocument(describeApi(CONTEXTS));
let current;
try {
  current = readFileSync(target, 'utf8');
} catch {
  current = undefined;
}
// Unchanged types leave the file alone, so tsc's incremental build and editors see nothing new.
if (current !== text) {
  mkdirSync(dirname(target), { recursive: true });
  writeFileSync(target, text);
  process.stdout.write(`sdk: wrote ${target}\n`);
}
