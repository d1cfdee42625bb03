#!/usr/bin/env bash
# Checks the contracts under proto/ (gRPC and the event catalog) with buf, as configured in buf.yaml:
#   1. buf lint;
#   2. buf breaking against the last commit on this branch that changed proto/ before the commit
#      under test: HEAD's parent's last proto/ commit when HEAD itself touches proto/, else HEAD's.
# The working tree is what is checked, so it runs the same on a clean CI clone and on uncommitted
# changes. Prints what it compared against; exits non-zero on any finding. Needs the full history:
# a shallow clone is refused (fetch with --unshallow, or actions/checkout's fetch-depth: 0).
set -euo pipefail
cd "$(dirname "$0")/.."
buf=(npx --no-install buf)

if [ "$(git rev-parse --is-shallow-repository)" = true ]; then
  echo "check-proto: this clone is shallow; buf breaking needs the last commit that changed proto/." >&2
  echo "check-proto: run 'git fetch --unshallow' (or check out with full history) and try again." >&2
  exit 2
fi

base=HEAD
if [ -n "$(git diff-tree --no-commit-id --name-only -r --root HEAD -- proto)" ]; then
  base=HEAD^
fi
against=$(git rev-parse -q --verify "$base" >/dev/null && git log -1 --format=%H "$base" -- proto || true)
if [ -z "$against" ]; then
  echo "check-proto: no commit before $(git rev-parse --short HEAD) changed proto/: nothing to compare against" >&2
  exit 2
fi

echo "check-proto: buf lint (buf.yaml)"
"${buf[@]}" lint
echo "check-proto: buf breaking: the working tree's proto/ against $(git log -1 --format='%h %s' "$against" | cut -c1-100)"
"${buf[@]}" breaking --against ".git#ref=${against},subdir=proto"
echo "check-proto: no lint finding, no breaking change"
