# syntax=docker/dockerfile:1
#
# One image for every component of the CRM. Build it from the repository root:
#
#   docker build -t crm:dev .
#
# and pick the component with the command:
#
#   docker run crm:dev start gateway      (also: directory, people, flows, messaging, activities)
#   docker run crm:dev migrate            (one-shot schema migrations)
#   docker run -p 8080:8080 -v crm-data:/data crm:dev
#                                         (the default: all-in-one, embedded backends under /data)
#
# Every setting comes from the environment (see docker-compose.yml and infra/README.md).

ARG NODE_IMAGE=node:20-bookworm-slim

# ---------------------------------------------------------------------------------------------
# manifests: only the files `npm ci` reads. The stage itself reruns on any change to the context,
# but its output changes only when a package.json or the lockfile does, so the dependency layer
# below stays cached across source edits, and a new workspace needs no edit here.
# ---------------------------------------------------------------------------------------------
FROM ${NODE_IMAGE} AS manifests
WORKDIR /src
COPY . .
RUN mkdir /manifests \
 && find . -name node_modules -prune -o -type f \
      \( -name package.json -o -name package-lock.json -o -name .npmrc \) -print \
    | xargs cp --parents -t /manifests

# ---------------------------------------------------------------------------------------------
# build: install everything, compile every workspace (turbo: TypeScript -> dist/, proto types),
# then drop the dev dependencies so what is left is exactly what runs.
# ---------------------------------------------------------------------------------------------
FROM ${NODE_IMAGE} AS build
# The npm that wrote package-lock.json (package.json "packageManager").
ARG NPM_VERSION=11.19.1
ENV CI=true \
    TURBO_TELEMETRY_DISABLED=1 \
    npm_config_update_notifier=false \
    npm_config_fund=false \
    npm_config_audit=false
RUN npm install --global "npm@${NPM_VERSION}"
WORKDIR /app
COPY --from=manifests /manifests/ ./
RUN --mount=type=cache,target=/root/.npm \
    npm ci
COPY . .
RUN npm run build \
 && npm prune --omit=dev \
 && rm -rf .turbo node_modules/.cache

# ---------------------------------------------------------------------------------------------
# runtime: Node, the compiled workspaces and production node_modules, owned by root and only
# readable by the process, which runs as the unprivileged `node` user (uid 1000). A component
# writes nothing but /tmp, so deployments run it with a read-only root filesystem.
# ---------------------------------------------------------------------------------------------
FROM ${NODE_IMAGE} AS runtime
# The runtime never installs anything: drop the package managers and their dependency trees.
RUN rm -rf /usr/local/lib/node_modules/npm /usr/local/lib/node_modules/corepack \
      /usr/local/bin/npm /usr/local/bin/npx /usr/local/bin/corepack \
      /opt/yarn-* /usr/local/bin/yarn /usr/local/bin/yarnpkg
# CRM_DATA_DIR: where the all-in-one mode keeps its embedded databases and generated secrets (mount
# a volume there). Distributed components take every backend and secret from the environment and
# must not write it. HOST: in a container the gateway listens on every interface, not loopback.
RUN mkdir /data && chown 1000:1000 /data
ENV NODE_ENV=production \
    CRM_DATA_DIR=/data \
    HOST=0.0.0.0
WORKDIR /app
COPY --from=build /app ./
# Numeric, so Kubernetes can verify runAsNonRoot without reading /etc/passwd.
USER 1000:1000
# gateway HTTP; directory, people, flows, messaging, activities gRPC.
EXPOSE 8080 50051 50052 50053 50054 50055
# gRPC health of GRPC_ADDR's port, or GET /readyz on PORT for the gateway (see the script).
# Compose and Kubernetes define their own checks; this one serves a plain `docker run`.
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "infra/docker/healthcheck.cjs"]
ENTRYPOINT ["node", "packages/cli/bin/crm.js"]
CMD ["start"]
