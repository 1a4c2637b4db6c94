# Shared by tests/cluster/{build,bin,up,down}. Sourced, not run.
# Binaries are cached per Kubernetes version outside the work tree, keyed by a hash of the
# module files so that a second build is a no-op and a change of pin rebuilds.
CLUSTER_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# The pins: the version each module requires (go.mod lists it inside or outside a require block).
K8S_VERSION=$(awk '$1 == "k8s.io/kubernetes" || ($1 == "require" && $2 == "k8s.io/kubernetes") {print $NF; exit}' "$CLUSTER_DIR/k8s/go.mod")
ETCD_VERSION=$(awk '$1 == "go.etcd.io/etcd/server/v3" || ($1 == "require" && $2 == "go.etcd.io/etcd/server/v3") {print $NF; exit}' "$CLUSTER_DIR/etcd/go.mod")
[ -n "$K8S_VERSION" ] && [ -n "$ETCD_VERSION" ] || { echo "tests/cluster: cannot read the pinned versions from the go.mod files" >&2; exit 1; }
CACHE_ROOT=${CSCHED_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/csched}
BIN_DIR="$CACHE_ROOT/cluster/$K8S_VERSION/bin"
export GOTOOLCHAIN=local GOWORK=off CGO_ENABLED=0 GOFLAGS=-mod=mod

cluster_log() { printf '[cluster] %s\n' "$*" >&2; }

# Directory holding the module that builds NAME.
cluster_module_of() {
	case "$1" in
	etcd) echo "$CLUSTER_DIR/etcd" ;;
	kube-apiserver | kube-scheduler | kube-controller-manager | kubectl) echo "$CLUSTER_DIR/k8s" ;;
	*) return 1 ;;
	esac
}

cluster_stamp_of() {
	local mod
	mod=$(cluster_module_of "$1") || return 1
	cat "$mod/go.mod" "$mod/go.sum" "$CLUSTER_DIR/lib.sh" $(find "$mod" -name '*.go' | sort) | sha256sum | cut -c1-16
}

# Builds NAME into BIN_DIR unless the cached binary matches the pinned sources.
cluster_build_one() {
	local name=$1 mod stamp pkg ldflags start
	mod=$(cluster_module_of "$name") || { cluster_log "unknown binary: $name"; return 2; }
	stamp=$(cluster_stamp_of "$name")
	if [ -x "$BIN_DIR/$name" ] && [ "$(cat "$BIN_DIR/$name.stamp" 2>/dev/null)" = "$stamp" ]; then
		return 0
	fi
	mkdir -p "$BIN_DIR"
	if [ "$name" = etcd ]; then
		pkg=.
		ldflags="-s -w"
	else
		pkg=./cmd/$name
		local minor=${K8S_VERSION#v1.}
		minor=${minor%%.*}
		ldflags="-s -w -X k8s.io/component-base/version.gitVersion=$K8S_VERSION"
		ldflags="$ldflags -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=$minor"
		ldflags="$ldflags -X k8s.io/component-base/version.gitTreeState=clean"
	fi
	cluster_log "building $name ($([ "$name" = etcd ] && echo "$ETCD_VERSION" || echo "$K8S_VERSION")); the first build takes minutes"
	start=$(date +%s)
	(cd "$mod" && go build -trimpath -ldflags "$ldflags" -o "$BIN_DIR/$name.tmp" "$pkg") || return 1
	mv "$BIN_DIR/$name.tmp" "$BIN_DIR/$name"
	echo "$stamp" >"$BIN_DIR/$name.stamp"
	cluster_log "built $name in $(($(date +%s) - start)) s"
}

# Serialises builds across concurrent callers (CI, make, several `up`s).
cluster_build() {
	mkdir -p "$CACHE_ROOT"
	(
		flock 9
		local n
		for n in "$@"; do cluster_build_one "$n" || exit 1; done
	) 9>"$CACHE_ROOT/build.lock"
}

CLUSTER_ALL_BINARIES="etcd kube-apiserver kube-scheduler kube-controller-manager kubectl"
