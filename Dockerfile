# syntax=docker/dockerfile:1
# One image for all five Lockstep services; the Helm chart picks the service with
#   command: ["node", "services/<name>/dist/main.js"]
# Build from the repository root:  docker build -t lockstep:0.1.0 .

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
RUN pnpm install --frozen-lockfile --offline
# Build every service and the workspace packages they import.
RUN pnpm exec turbo run build --filter='./services/*...'
# Prune to production dependencies (dist/ stays; devDependencies go).
RUN pnpm install --frozen-lockfile --offline --prod \
 && rm -rf .turbo .tools proto bench test deploy scripts packages/*/src services/*/src \
      packages/chart-test packages/kube-sim packages/cluster-sim packages/testing packages/cli packages/rehearse

FROM ${NODE_IMAGE}
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build --chown=root:root /src /app
# The non-root user of node images (uid/gid 1000, as the chart's securityContext expects).
USER 1000:1000
EXPOSE 9090-9094 8090-8094
CMD ["node", "services/watcher/dist/main.js"]
