#!/usr/bin/env node
'use strict';
// Container health check for the `crm` image, with nothing but Node and the image's own
// node_modules (the image has no curl, wget or grpc_health_probe).
//
//   node infra/docker/healthcheck.cjs grpc 127.0.0.1:50052 [service]   grpc.health.v1.Health/Check
//   node infra/docker/healthcheck.cjs http http://127.0.0.1:8080/readyz  any 2xx
//   node infra/docker/healthcheck.cjs                                   from the environment:
//       GRPC_ADDR set -> gRPC check of that port on loopback; otherwise HTTP GET /readyz on PORT.
//
// Exit 0 when healthy, 1 otherwise (the contract of Docker's HEALTHCHECK). Kubernetes does not
// use this script: it probes gRPC and HTTP natively.

const TIMEOUT_MS = Number(process.env.HEALTHCHECK_TIMEOUT_MS || 3000);
const SERVING = 1; // grpc.health.v1.HealthCheckResponse.ServingStatus.SERVING

function fromEnvironment() {
  const grpcAddr = process.env.GRPC_ADDR;
  if (grpcAddr) return ['grpc', `127.0.0.1:${portOf(grpcAddr)}`];
  return ['http', `http://127.0.0.1:${process.env.PORT || 8080}/readyz`];
}

function portOf(addr) {
  const port = addr.slice(addr.lastIndexOf(':') + 1);
  if (!/^\d+$/.test(port)) throw new Error(`no port in address "${addr}"`);
  return port;
}

// HealthCheckRequest { string service = 1; }
function encodeRequest(service) {
  const bytes = Buffer.from(service, 'utf8');
  if (bytes.length === 0) return Buffer.alloc(0);
  if (bytes.length > 127) throw new Error('service name too long');
  return Buffer.concat([Buffer.from([0x0a, bytes.length]), bytes]);
}

// HealthCheckResponse { ServingStatus status = 1; }; an absent field is UNKNOWN (0).
function decodeStatus(buf) {
  let i = 0;
  let status = 0;
  const varint = () => {
    let value = 0;
    let shift = 0;
    for (;;) {
      if (i >= buf.length) throw new Error('truncated response');
      const b = buf[i++];
      value += (b & 0x7f) * 2 ** shift;
      if ((b & 0x80) === 0) return value;
      shift += 7;
    }
  };
  while (i < buf.length) {
    const key = varint();
    const field = Math.floor(key / 8);
    const wire = key & 7;
    if (wire === 0) {
      const v = varint();
      if (field === 1) status = v;
    } else if (wire === 2) {
      i += varint();
    } else if (wire === 1) {
      i += 8;
    } else if (wire === 5) {
      i += 4;
    } else {
      throw new Error(`unexpected wire type ${wire}`);
    }
  }
  return status;
}

function checkGrpc(target, service = '') {
  const grpc = require('@grpc/grpc-js');
  const client = new grpc.Client(target, grpc.credentials.createInsecure());
  return new Promise((resolve, reject) => {
    client.makeUnaryRequest(
      '/grpc.health.v1.Health/Check',
      (b) => b,
      (b) => b,
      encodeRequest(service),
      new grpc.Metadata(),
      { deadline: Date.now() + TIMEOUT_MS },
      (err, res) => {
        client.close();
        if (err) return reject(new Error(`${target}: ${err.details || err.message}`));
        const status = decodeStatus(res);
        if (status !== SERVING) return reject(new Error(`${target}: status ${status}, not SERVING`));
        resolve(`${target}: SERVING`);
      },
    );
  });
}

async function checkHttp(url) {
  const res = await fetch(url, { signal: AbortSignal.timeout(TIMEOUT_MS) });
  await res.arrayBuffer();
  if (res.status < 200 || res.status > 299) throw new Error(`${url}: HTTP ${res.status}`);
  return `${url}: HTTP ${res.status}`;
}

async function main(argv) {
  const [kind, target, service] = argv.length > 0 ? argv : fromEnvironment();
  if (kind === 'grpc' && target) return checkGrpc(target, service);
  if (kind === 'http' && target) return checkHttp(target);
  throw new Error('usage: healthcheck.cjs [grpc <host:port> [service] | http <url>]');
}

main(process.argv.slice(2)).then(
  (msg) => {
    process.stdout.write(`healthy: ${msg}\n`);
    process.exit(0);
  },
  (err) => {
    process.stderr.write(`unhealthy: ${err.message}\n`);
    process.exit(1);
  },
);
