#!/bin/sh
# Copies the generated.proto files csched decodes (apiclient/protobuf.c) from the Go module cache,
# at the k8s.io/api and k8s.io/apimachinery versions tests/cluster/k8s/go.mod pins. Run from the
# repository root after a version bump (needs Go; `go mod download` fetches a missing module):
#   apiclient/proto/update.sh
# The C code is generated from these at build time (CMakeLists.txt: protoc + protoc-c).
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
ver() { sed -n "s|^\t$1 => $1 \(v[^ ]*\)$|\1|p" "$root/tests/cluster/k8s/go.mod"; }
api=$(ver k8s.io/api) mach=$(ver k8s.io/apimachinery)
[ -n "$api" ] && [ -n "$mach" ] || { echo "update.sh: versions not found in tests/cluster/k8s/go.mod" >&2; exit 1; }
gm=$(go env GOMODCACHE)
[ -d "$gm/k8s.io/api@$api" ] || (cd "$root/tests/cluster/k8s" && go mod download "k8s.io/api@$api")
[ -d "$gm/k8s.io/apimachinery@$mach" ] || (cd "$root/tests/cluster/k8s" && go mod download "k8s.io/apimachinery@$mach")
dst=$root/apiclient/proto
for p in core/v1 policy/v1 apps/v1 storage/v1 resource/v1; do
	mkdir -p "$dst/k8s.io/api/$p"
	cp "$gm/k8s.io/api@$api/$p/generated.proto" "$dst/k8s.io/api/$p/generated.proto"
done
for p in pkg/api/resource pkg/apis/meta/v1 pkg/runtime pkg/runtime/schema pkg/util/intstr; do
	mkdir -p "$dst/k8s.io/apimachinery/$p"
	cp "$gm/k8s.io/apimachinery@$mach/$p/generated.proto" "$dst/k8s.io/apimachinery/$p/generated.proto"
done
chmod -R u+w "$dst/k8s.io"
echo "k8s.io/api $api, k8s.io/apimachinery $mach" > "$dst/VERSION"
