# One image recipe for the eight workloads of the fleet. Build from the repository root:
#   docker build --build-arg WORKLOAD=services/catalog -t msp/catalog .
#   docker build --build-arg WORKLOAD=services/media-processing --build-arg SYSTEM_PACKAGES=ffmpeg -t msp/media-processing .
#   docker build --build-arg WORKLOAD=gateway -t msp/gateway .
# docker-compose.yml and scripts/images.sh build every workload this way.
#
# build stage: install from the lockfile, generate the Prisma client, compile the workload to
#   JavaScript (scripts/build-service.mjs: dist/server.js and, with a database, dist/migrate.js),
#   then `pnpm deploy --prod` copies the workload with only its production dependencies into /out
#   (flat node_modules; no TypeScript, tsx, Prisma CLI, test tools or other workloads).
# runtime stage: Node LTS slim, tini, the workload's system packages (ffmpeg for media-processing
#   only), /out, non-root. tests/compiled runs the same build and deploy commands and starts the result.
ARG NODE_IMAGE=node:24-bookworm-slim

FROM ${NODE_IMAGE} AS build
ENV CI=true
RUN npm install -g pnpm@10.34.9
WORKDIR /repo
# Only the lockfile decides what is downloaded: this layer is shared by all eight images and
# survives source and manifest edits.
COPY pnpm-lock.yaml pnpm-workspace.yaml package.json .npmrc ./
RUN pnpm fetch --store-dir /pnpm/store
COPY . .
# The workload folder (services/<name> or gateway); its package name is read from its package.json.
ARG WORKLOAD
RUN test -n "$WORKLOAD" && test -f "$WORKLOAD/package.json" || (echo "build-arg WORKLOAD=services/<name>|gateway is required" >&2; exit 1)
RUN PKG=$(node -p "require('./$WORKLOAD/package.json').name") \
 && pnpm install --frozen-lockfile --offline --store-dir /pnpm/store --filter "$PKG..." --filter . \
 && if [ -d "$WORKLOAD/prisma" ]; then \
      PRISMA_SCHEMA_ENGINE_BINARY=/bin/true PRISMA_QUERY_ENGINE_LIBRARY=/bin/true CHECKPOINT_DISABLE=1 pnpm --filter "$PKG" generate; \
    fi \
 && pnpm --filter "$PKG" run build \
 && pnpm --filter "$PKG" deploy --prod --legacy --config.node-linker=hoisted --config.auto-install-peers=false \
      --offline --store-dir /pnpm/store /out \
 && cd /out && rm -rf src test Dockerfile tsconfig.json vitest.config.ts prisma.config.ts README.md

FROM ${NODE_IMAGE}
# Debian packages the workload runs besides Node (space-separated): "ffmpeg" for media-processing.
ARG SYSTEM_PACKAGES=""
# tini forwards SIGTERM so the process drains gracefully.
RUN apt-get update \
 && apt-get install -y --no-install-recommends tini $SYSTEM_PACKAGES \
 && rm -rf /var/lib/apt/lists/*
ENV NODE_ENV=production
# V8's old generation capped below every container's memory limit (512Mi; the heap in use under
# load is 60-110 MB). Uncapped, V8 sizes its heap from the host's memory and lets garbage pile up:
# catalog's highest RSS under bench/catalog-reads.ts was 350-380 MB, about 220 MB with this cap, at
# the same CPU per request. (256 was too tight: social started from its TypeScript sources collected
# constantly and served a third of its requests.) A Deployment may override NODE_OPTIONS.
ENV NODE_OPTIONS=--max-old-space-size=384
WORKDIR /app
COPY --from=build --chown=1000:1000 /out /app
# The image's "node" user (uid 1000); numeric so Kubernetes can verify runAsNonRoot. The only
# writable place it needs is /tmp (media work files); mount an emptyDir there with a read-only root.
USER 1000:1000
ENTRYPOINT ["/usr/bin/tini", "--"]
# The server is the direct child of tini and receives SIGTERM itself. Migrations: `node dist/migrate.js`
# (the Kubernetes migration Job and compose's <name>-migrate one-shot run it with this image).
# dist/instrument.js starts tracing (http and pg instrumentations) when OTEL_EXPORTER_OTLP_ENDPOINT is set.
CMD ["node", "--enable-source-maps", "--import", "./dist/instrument.js", "dist/server.js"]
