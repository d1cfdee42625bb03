#!/usr/bin/env node
'use strict';
// Telemetry starts before anything else loads, so the HTTP and gRPC instrumentations can patch
// those modules (the root README.md, "Architecture"). The component name becomes the service name.
const [command, component] = process.argv.slice(2);
if (command === 'start') {
  require('@crm/kit/telemetry').startTelemetry(`crm-${component || 'all-in-one'}`);
}
require('../dist/main.js')
  .main(process.argv.slice(2))
  .catch((error) => {
    process.stderr.write(`crm: ${error && error.message ? error.message : String(error)}\n`);
    process.exit(1);
  });
