# syntax=docker/dockerfile:1
# One image for all five Lockstep services; the Helm chart picks the service with
#   command: ["node", "services/<name>/dist/main.js"]
# Build from the repository root:  docker build -t lockstep:0.1.0 .
# Without Docker (and without Docker Hub): `npm run image` builds the same image (same /app, user, command,
# environment, ports and labels) from Debian's packages and the npm registry's Node.js, reproducibly; see
# scripts/image/README.md. Keep the two in step (scripts/image/build.mjs: PRUNE, VOLATILE, imageLabels).

ARG NODE_IMAGE=node:20-slim

FROM ${NODE_IMAGE} AS build
ENV CI=true TURBO_TELEMETRY_DISABLED=1
# The pinned pnpm (scripts/pnpm.mjs); corepack cannot verify it against every registry.
RUN npm install -g --no-audit --no-fund pnpm@10.34.9
WORKDIR /src
# Dependencies first, from the lockfile alone, so source edits reuse this layer.
COPY pnpm-lock.yaml pnpm-workspace.yaml ./
RUN pnpm fetch
COPY . .
RUN pnpm install --frozen-lockfile --offline --ignore-scripts
# Build every service and the workspace packages they import.
RUN pnpm exec turbo run build --filter='./services/*...'
# Prune to production dependencies (dist/ stays; devDependencies go).
# A fresh production install of the services and what they import (install --prod over the full install
# would leave the devDependencies' packages in node_modules/.pnpm). No install scripts: the only one is the
# root's postinstall (test tools); the services need none.
RUN find . -name node_modules -type d -prune -exec rm -rf {} + \
 && pnpm install --frozen-lockfile --offline --ignore-scripts --prod --filter='{./services/*}...' \
 && rm -rf .turbo .tools proto bench test deploy scripts packages/*/src services/*/src \
      packages/chart-test packages/kube-sim packages/cluster-sim packages/testing packages/cli packages/rehearse \
 && rm -f node_modules/.modules.yaml node_modules/.pnpm-workspace-state-v1.json node_modules/.pnpm/lock.yaml

FROM ${NODE_IMAGE}
ARG REVISION=unknown
ARG CREATED=1970-01-01T00:00:00Z
LABEL org.opencontainers.image.title="lockstep" \
      org.opencontainers.image.description="Lockstep's five services; the chart picks one with command: node services/<name>/dist/main.js" \
      org.opencontainers.image.version="0.1.0" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.created="${CREATED}" \
      org.opencontainers.image.source="https://github.com/lockstep/lockstep" \
      org.opencontainers.image.base.name="debian:bookworm"
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build --chown=root:root /src /app
# The non-root user of node images (uid/gid 1000, as the chart's securityContext expects).
USER 1000:1000
EXPOSE 9090-9094 8090-8094
CMD ["node", "services/watcher/dist/main.js"]
