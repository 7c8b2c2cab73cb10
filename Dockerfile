# syntax=docker/dockerfile:1
# The app's image (decision 082): built by `npm run build`, started by the command `npm start`
# runs (`node scripts/start.js`: npm does not pass SIGTERM on, so the app could not shut down
# cleanly under it). No Docker engine exists where this was written: tests/integration/ops/
# deployment-files.test.ts checks what can be checked without one. Installs with `npm install`,
# as .ci/run does (docs/product.md §11.7: `npm ci` fails on the lockfile written here).
ARG NODE_VERSION=20

FROM node:${NODE_VERSION}-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm install --no-audit --no-fund
COPY . .
RUN npm run build

FROM node:${NODE_VERSION}-bookworm-slim
# pg_dump / pg_restore for `npm run backup` and `npm run restore`; the server's major version.
RUN apt-get update \
  && apt-get install -y --no-install-recommends postgresql-client-15 \
  && rm -rf /var/lib/apt/lists/*
WORKDIR /app
# The whole tree, dev dependencies included: the operator scripts (vpn, backup, restore) run
# through tsx. Owned by root, so the app cannot change its own code.
COPY --from=build /app /app
RUN mkdir -p /data && chown node:node /data && chmod 0700 /data
# MALLOC_ARENA_MAX: what `npm start` sets (package.json; decision 116).
ENV NODE_ENV=production DATA_DIR=/data HOST=0.0.0.0 PORT=3000 MALLOC_ARENA_MAX=2
USER node
VOLUME ["/data"]
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/readyz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# The heap flags of `npm start` (package.json; decision 100), its environment in ENV above.
CMD ["node", "--max-old-space-size=128", "--max-semi-space-size=4", "scripts/start.js"]
