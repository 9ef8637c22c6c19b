# syntax=docker/dockerfile:1
# One image for every process; the command picks it (dist/wallet/main.js, dist/engine/main.js,
# dist/gateway/main.js, or dist/scripts/start.js for all three on the embedded defaults). The build stage
# compiles the TypeScript (`npm run build`, scripts/build.ts); the runtime stage holds production dependencies
# and the compiled JavaScript only, and runs it with plain node: no tsx, no esbuild, shard threads included.

ARG NODE_IMAGE=node:20-bookworm-slim

# Production dependencies only (tsx and TypeScript are development dependencies). Only the root manifest: with
# client/package.json present, npm would also install the client workspace's dependencies.
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force

# Every dependency (the client workspace's too, for its build) and the build into dist/, which type-checks: an
# image is never built from code that does not compile.
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
COPY client/package.json ./client/
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY . .
RUN npm run build

FROM ${NODE_IMAGE} AS runtime
# HOST=0.0.0.0: every process then refuses to start without INTERNAL_TOKEN (the gateway also without
# WALLET_ADMIN_TOKEN), given when the container runs (compose: the environment; Kubernetes: the Secret), never
# baked into the image (docs/runbook.md, "Deploying safely").
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    DATA_DIR=/data
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /app/package.json ./
# The compiled processes with the files they read at run time (.proto, SQL migrations) beside them.
COPY --from=build /app/dist ./dist
# The image's files belong to root and are read-only for the process; only DATA_DIR is writable.
RUN mkdir -p /data && chown node:node /data
USER node
# 8080 /v1, 8081 /api + gateway /metrics, 50051 engine gRPC, 50052 wallet gRPC, 9101/9102 engine/wallet admin.
EXPOSE 8080 8081 50051 50052 9101 9102
STOPSIGNAL SIGTERM
ENTRYPOINT ["node"]
CMD ["dist/scripts/start.js"]
