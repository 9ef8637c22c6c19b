# syntax=docker/dockerfile:1
# One image for every process; the command picks it (wallet/main.ts, engine/main.ts, gateway/main.ts, or
# scripts/start.ts for all three on the embedded defaults). TypeScript runs through tsx, as in development:
# the build stage type-checks, the runtime stage holds production dependencies and the sources only.

ARG NODE_IMAGE=node:20-bookworm-slim

# Production dependencies only (tsx included: it is how the processes and the shard threads load .ts).
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force

# Every dependency, and the type check: an image is never built from code that does not compile.
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY . .
RUN npm run typecheck

FROM ${NODE_IMAGE} AS runtime
# HOST=0.0.0.0: every process then refuses to start without INTERNAL_TOKEN (the gateway also without
# WALLET_ADMIN_TOKEN), given when the container runs (compose: the environment; Kubernetes: the Secret), never
# baked into the image (docs/runbook.md, "Deploying safely").
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    DATA_DIR=/data
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /app/package.json /app/tsconfig.json ./
COPY --from=build /app/proto ./proto
COPY --from=build /app/kernel ./kernel
COPY --from=build /app/wallet ./wallet
COPY --from=build /app/engine ./engine
COPY --from=build /app/gateway ./gateway
COPY --from=build /app/scripts ./scripts
# The image's files belong to root and are read-only for the process; only DATA_DIR is writable.
RUN mkdir -p /data && chown node:node /data
USER node
# 8080 /v1, 8081 /api + gateway /metrics, 50051 engine gRPC, 50052 wallet gRPC, 9101/9102 engine/wallet admin.
EXPOSE 8080 8081 50051 50052 9101 9102
STOPSIGNAL SIGTERM
ENTRYPOINT ["node", "--import", "tsx"]
CMD ["scripts/start.ts"]
