# syntax=docker/dockerfile:1
#
# One image per component of the CRM, each holding only that component's code, the shared kit,
# the contract packages and proto files it uses and their production dependencies; plus the
# all-in-one image (the default target). Build from the repository root:
#
#   docker build --target people -t crm-people:dev .
#       (targets: gateway, directory, people, flows, messaging, activities, webhooks, all-in-one)
#   docker build -t crm:dev .                  all-in-one: `docker run -p 8080:8080 -v crm-data:/data crm:dev`
#
# Each component image starts its component by default (`crm start <component>`); `migrate` runs
# its schema migrations (`docker run crm-people:dev migrate people`). What each image holds is
# computed by scripts/image-files.mjs (its workspace dependency closure) and checked by
# test/infra/image-files.test.ts. Every setting comes from the environment (see
# docker-compose.yml and infra/README.md).

ARG NODE_IMAGE=node:24.21.0-trixie-slim

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
# then copy each target's files (its production dependency closure, no dev dependencies, no
# sources) to /out/<target>. Every target shares this stage; each image takes only its folder.
# The targets are the gateway, every workspace under services/ and all-in-one (`--targets`), so a
# new service gets its /out/<service> here without an edit; it needs only its stage below.
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
 && for target in $(node scripts/image-files.mjs --targets); do \
      node scripts/image-files.mjs "$target" --copy-to "/out/$target" || exit 1; \
    done

# ---------------------------------------------------------------------------------------------
# runtime: what every image shares. Node without package managers; files owned by root and only
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
# Numeric, so Kubernetes can verify runAsNonRoot without reading /etc/passwd.
USER 1000:1000
# gRPC health of GRPC_ADDR's port, or GET /readyz on PORT for the gateway (see the script).
# Compose and Kubernetes define their own checks; this one serves a plain `docker run`.
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "infra/docker/healthcheck.cjs"]
ENTRYPOINT ["node", "packages/cli/bin/crm.js"]

# ---------------------------------------------------------------------------------------------
# One target per component: its files, its port, `start <component>` by default.
# ---------------------------------------------------------------------------------------------
FROM runtime AS gateway
COPY --from=build /out/gateway/ ./
EXPOSE 8080
CMD ["start", "gateway"]

FROM runtime AS directory
COPY --from=build /out/directory/ ./
EXPOSE 50051
CMD ["start", "directory"]

FROM runtime AS people
COPY --from=build /out/people/ ./
EXPOSE 50052
CMD ["start", "people"]

FROM runtime AS flows
COPY --from=build /out/flows/ ./
EXPOSE 50053
CMD ["start", "flows"]

# gRPC, and inbound mail over SMTP when INBOUND_SMTP_ADDR is set (2525 in compose and Kubernetes).
FROM runtime AS messaging
COPY --from=build /out/messaging/ ./
EXPOSE 50054 2525
CMD ["start", "messaging"]

FROM runtime AS activities
COPY --from=build /out/activities/ ./
EXPOSE 50055
CMD ["start", "activities"]

# gRPC; delivers webhooks over https to the receivers' public addresses (egress checked at connect).
FROM runtime AS webhooks
COPY --from=build /out/webhooks/ ./
EXPOSE 50056
CMD ["start", "webhooks"]

# The default target: every component in one process on embedded backends (under /data).
FROM runtime AS all-in-one
COPY --from=build /out/all-in-one/ ./
EXPOSE 8080 50051 50052 50053 50054 50055 50056
CMD ["start"]
