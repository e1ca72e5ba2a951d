# syntax=docker/dockerfile:1
# memory-graph HTTP service for Cloud Run. Build: docker build -t memory-graph .
# Run:  docker run -p 8080:8080 -e API_KEYS=tenant:key memory-graph
# (NODE_ENV=production: the service refuses to start without API_KEYS.)
#
# On Cloud Run: --memory 1Gi --cpu 1 with one worker (WEB_CONCURRENCY=1). The recall index cache
# is bounded at 256 MiB by its own count, and measured in RSS it grows about 1.7x that: 0.57-0.63 GB
# once an instance has served a few thousand users (bench/recall-users.ts, docs/operations.md,
# "Cold start and memory on Cloud Run"); 512 MiB holds about 1,000 users' indexes and is then
# killed for memory. Minimum instances may be 0: a new instance listens in about 0.9 s and answers
# its first turn in about 1.1 s on the benchmark machine (npm run bench:cold-start; the bare
# LangGraph chatbot 0.65-0.7 s), the language tools loading after it listens.
#
# CI performs these steps without a container engine: scripts/image-check.ts reads this file and
# runs each step in a clean temporary copy with this Node version, then starts the result and
# sends it one authenticated turn. Keep to FROM/ARG/WORKDIR/ENV/COPY/RUN/USER/EXPOSE/CMD.

# The current Node LTS (the CI suite runs on this version too).
ARG NODE_VERSION=26.10.0

# Production dependencies only (better-sqlite3 is native: build tools in case no prebuilt binary fits).
FROM node:${NODE_VERSION}-slim AS deps
WORKDIR /app
RUN apt-get update \
  && apt-get install -y --no-install-recommends python3 make g++ \
  && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
RUN npm ci --omit=dev

# Compile TypeScript to dist/ with the full dependency set.
FROM deps AS build
RUN npm ci
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build

# Small runtime: node, production node_modules, compiled JS; runs as the non-root `node` user.
FROM node:${NODE_VERSION}-slim
WORKDIR /app
ENV NODE_ENV=production \
    PORT=8080 \
    SQLITE_PATH=/app/data/memory.db
COPY --from=deps --chown=node:node /app/node_modules ./node_modules
COPY --from=build --chown=node:node /app/dist ./dist
# The memory inspector's page (served at /inspector when INSPECTOR=on; off in production by default).
COPY --chown=node:node inspector ./inspector
COPY --chown=node:node package.json ./
RUN mkdir -p /app/data && chown node:node /app/data
USER node
EXPOSE 8080
# `npm start` runs the TypeScript entry through tsx (a dev dependency); the image runs its compiled form.
CMD ["node", "dist/service/start.js"]
