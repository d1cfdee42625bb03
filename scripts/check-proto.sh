#!/usr/bin/env bash
# Checks the contracts under proto/ (gRPC and the event catalog) with buf, as buf.yaml configures it:
#   1. buf lint on the working tree;
#   2. buf breaking: the working tree against the last commit that changed a .proto file (what an
#      uncommitted change would break);
#   3. buf breaking: every commit that changed a .proto file against the one before it, over the
#      whole history, under today's buf.yaml. A submission of several commits is checked commit by
#      commit, not only at its head, and a break committed once stays red until it is listed below
#      with its reason.
# Prints what it compared; exits non-zero on any finding. Needs the full history: a shallow clone is
# deepened from its origin, or refused (fetch with --unshallow, or actions/checkout's fetch-depth: 0).
set -euo pipefail
cd "$(dirname "$0")/.."
buf=(npx --no-install buf)

# Breaks that landed before this check existed, each retired as proto/README.md ("Past changes")
# says: EmailSent field 5 retyped (no event of the old shape was ever published; its old name is
# reserved); Integration.config retyped (moved to field 11, 10 kept one release as legacy_config).
ACCEPTED=(
  0d007d7 # EmailSent.flow_enrollment_id (string) -> EmailSent.flow (FlowStep), field 5
  4840e6d # Integration.config, field 10: google.protobuf.Struct -> google.protobuf.Value
)

if [ "$(git rev-parse --is-shallow-repository)" = true ] && ! git fetch -q --unshallow 2>/dev/null; then
  echo "check-proto: this clone is shallow and its origin cannot deepen it; buf breaking needs every commit that changed proto/." >&2
  echo "check-proto: run 'git fetch --unshallow' (or check out with full history) and try again." >&2
  exit 2
fi

accepted() {
  local full
  full=$(git rev-parse "$1")
  for known in "${ACCEPTED[@]}"; do [[ "$full" == "$known"* ]] && return 0; done
  return 1
}

# The same configuration on both sides, whatever buf.yaml (if any) the older commit had.
breaking() { "${buf[@]}" breaking "$1" --against "$2" --config buf.yaml --against-config buf.yaml; }

echo "check-proto: buf lint (buf.yaml)"
"${buf[@]}" lint

mapfile -t commits < <(git log --reverse --format=%H -- proto/crm)
if [ "${#commits[@]}" -eq 0 ]; then
  echo "check-proto: no commit has changed proto/crm yet: nothing to compare against" >&2
  exit 2
fi
last=${commits[-1]}
echo "check-proto: buf breaking: the working tree against $(git log -1 --format='%h %s' "$last" | cut -c1-100)"
breaking . ".git#ref=$last"

failed=0
checked=0
for ((i = 1; i < ${#commits[@]}; i++)); do
  commit=${commits[i]} previous=${commits[i - 1]}
  if findings=$(breaking ".git#ref=$commit" ".git#ref=$previous" 2>&1); then
    checked=$((checked + 1))
  elif accepted "$commit"; then
    echo "check-proto: $(git log -1 --format='%h' "$commit") breaks $(git log -1 --format='%h' "$previous") (accepted, retired: proto/README.md)"
    checked=$((checked + 1))
  else
    echo "check-proto: $(git log -1 --format='%h %s' "$commit" | cut -c1-100)" >&2
    echo "  breaks $(git log -1 --format='%h' "$previous"), the contracts before it:" >&2
    echo "$findings" | sed 's/^/    /' >&2
    failed=1
  fi
done
echo "check-proto: buf breaking: $checked commits that changed proto/crm, each against the one before it"
if [ "$failed" -ne 0 ]; then
  echo "check-proto: a commit breaks a contract (above): proto/README.md says how to change one" >&2
  exit 1
fi
echo "check-proto: no lint finding, no breaking change"
