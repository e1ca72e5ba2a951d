# syntax=docker/dockerfile:1
# memory-graph HTTP service for Cloud Run. Build: docker build -t memory-graph .
# Run:  docker run -p 8080:8080 -e API_KEYS=tenant:key memory-graph
# (NODE_ENV=production: the service refuses to start without API_KEYS.)
#
# On Cloud Run: --cpu 1 with one worker (WEB_CONCURRENCY=1), --concurrency 32, and --memory 1Gi for
# busy instances: at 8 turns/s per instance bench:load saw 480-500 MB of RSS with the NODE_OPTIONS
# below (560-610 MB without), V8's heap sized from the benchmark machine's 24 GB. With --memory 512Mi
# bound the heap too (NODE_OPTIONS='--max-semi-space-size=2 --max-old-space-size=256': under 290 MB
# at that load in one run, its first tokens slower in that run: docs/operations.md).
# Memory: the recall index cache holds RECALL_CACHE_MB (128) by its own count and gives memory back
# once RSS passes RECALL_CACHE_MAX_RSS_MB (unset: 3/4 of the instance's memory limit, read from the
# cgroup; 400 without one); after serving 10,000 users an instance under a 512 MiB limit measured
# 349-365 MB of RSS with the cache full (bench/lib/memory-limit.ts 512 ... bench/recall-users.ts
# --users 10000, Node 26 with the flag below: V8 sizes its heap from the limit), and 340 MB with the cache
# full at 128 MB when V8's young generation is kept small (NODE_OPTIONS below: 4,000 users; 438 MB
# without it): the recall cache alone fits 512 MiB. A larger instance: raise RECALL_CACHE_MB (RSS
# grows about 1.5x it with the NODE_OPTIONS below, 2x without, above the service's own ~160 MB); the
# RSS ceiling follows the instance's memory by itself.
# Concurrency: each worker runs MAX_CONCURRENT_TURNS (32) turns at once and answers the next with a
# quick 503 OVERLOADED + Retry-After after TURN_QUEUE_MS (500 ms) rather than slowing every turn;
# Cloud Run --concurrency 32, the same, lets Cloud Run queue and scale out before that happens. Two
# instances on one Postgres took 16 turns/s with 0 errors and first token p95 0.45 s, and 32 turns/s
# offered with 0 errors, 7% refused at capacity, p95 2.6 s (npm run bench:load; docs/operations.md).
# Minimum instances may be 0: a new instance listens in
# about 0.55 s and answers its first turn in about 0.7 s on the benchmark machine (npm run
# bench:cold-start; the bare LangGraph chatbot 0.51-0.54 s), the language tools loading after it listens.
# On Node 26 the compile cache filled below takes 0.12-0.19 s off the first answer (bench:cold-start
# --compile-cache: ours/bare 1.15-1.29 with it, 1.29-1.33 without; docs/operations.md).
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

# Compile TypeScript to dist/ with the full dependency set, and bundle the service's own modules into
# dist/service (esbuild; packages stay in node_modules): a new instance opens ~40 of our files, not ~220.
FROM deps AS build
RUN npm ci
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build

# Small runtime: node, production node_modules, compiled JS; runs as the non-root `node` user.
FROM node:${NODE_VERSION}-slim
WORKDIR /app
# --max-semi-space-size=2: V8's young generation kept at 2 MB a semi-space, so the heap does not
# hold ~60-90 MB of room beyond what is live (docs/operations.md, "Memory").
# NODE_COMPILE_CACHE: Node's module compile cache, filled below (docs/operations.md, "Cold start").
ENV NODE_ENV=production \
    PORT=8080 \
    SQLITE_PATH=/app/data/memory.db \
    NODE_OPTIONS=--max-semi-space-size=2 \
    NODE_COMPILE_CACHE=/app/.node-cache
COPY --from=deps --chown=node:node /app/node_modules ./node_modules
COPY --from=build --chown=node:node /app/dist ./dist
# The memory inspector's page (served at /inspector when INSPECTOR=on; off in production by default).
COPY --chown=node:node inspector ./inspector
COPY --chown=node:node package.json ./
COPY --chown=node:node scripts/fill-compile-cache.mjs ./scripts/
RUN mkdir -p /app/data /app/.node-cache && chown node:node /app/data /app/.node-cache
USER node
# V8's compiled code of every module the service loads (the bundle's and its packages'), made here
# by this stage's Node, NODE_OPTIONS and files, so that a new instance reads it rather than
# compiling them: importing runs only the modules' top-level code, nothing listens or connects.
RUN node scripts/fill-compile-cache.mjs dist/service
EXPOSE 8080
# `npm start` runs the TypeScript entry through tsx (a dev dependency); the image runs its compiled, bundled form.
CMD ["node", "dist/service/start.js"]
