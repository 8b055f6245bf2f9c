#!/usr/bin/env bash
# Builds every image from the one Dockerfile, brings the compose fleet up and walks it as a user and
# an operator would (scripts/compose-smoke.ts: mail through Mailpit, an upload processed by the
# media worker, the admin account, one trace in Jaeger). Needs a Docker engine with compose v2;
# CI machines of this project have none (there, tests/compiled starts each compiled workload and
# tests/e2e runs the fleet in one process).
#   scripts/compose-e2e.sh           # build, up, smoke, down (volumes removed)
#   KEEP=1 scripts/compose-e2e.sh    # leave the fleet running afterwards
set -euo pipefail
cd "$(dirname "$0")/.."
project="msp-e2e-$$"
compose() { docker compose -p "$project" "$@"; }
cleanup() {
  status=$?
  if [ "$status" -ne 0 ]; then compose logs --no-color --tail 200 || true; fi
  if [ -z "${KEEP:-}" ]; then compose down -v --remove-orphans || true; fi
  exit "$status"
}
trap cleanup EXIT
compose build
compose up -d   # the smoke waits for /api/health (one-shot migrate containers exit, which `--wait` would count as a failure on older compose)
npx tsx scripts/compose-smoke.ts
