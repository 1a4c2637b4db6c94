#!/usr/bin/env bash
# Builds the oracle into ${ORACLE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/csched-oracle/tests}/oracle
# and prints its path.
# Idempotent: rebuilds only when main.go, go.mod, go.sum, this script or the Go version changed. Quiet: the
# build log is shown only on failure. Cold build (empty Go build cache) ~6 min on 2 cores; ~15 s
# after tests/cluster/build (same flags, so its compiled packages are reused).
set -euo pipefail
src=$(cd "$(dirname "$0")" && pwd)
out=${ORACLE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/csched-oracle/tests}
GO=${GO:-$(command -v go)}
mkdir -p "$out"
stamp=$( (cat "$src/main.go" "$src/go.mod" "$src/go.sum" "$src/build.sh"; "$GO" version) | sha256sum | cut -c1-16)
if [ -x "$out/oracle" ] && [ "$(cat "$out/oracle.stamp" 2>/dev/null)" = "$stamp" ]; then
	echo "$out/oracle"
	exit 0
fi
tmp=$(mktemp "$out/oracle.XXXXXX")
trap 'rm -f "$tmp"' EXIT
# The flags of tests/cluster/lib.sh (CGO_ENABLED=0, -trimpath), so that the packages the control
# plane's build compiled come from the Go build cache: ~15 s after tests/cluster/build.
if ! (cd "$src" && GOTOOLCHAIN=local GOWORK=off CGO_ENABLED=0 GOFLAGS="-mod=readonly -buildvcs=false" \
	nice -n 10 "$GO" build -trimpath -o "$tmp" .) >"$out/build.log" 2>&1; then
	echo "oracle build failed (log: $out/build.log):" >&2
	tail -20 "$out/build.log" >&2
	exit 1
fi
mv -f "$tmp" "$out/oracle"
echo "$stamp" >"$out/oracle.stamp"
echo "$out/oracle"
