#!/usr/bin/env bash
# Differential check of csched's quantity parser against upstream's ParseQuantity over a corpus
# (default: the seed corpus; pass the directory a fuzz_apiclient_quantity run grew):
#   tests/fuzz/quantity_diff.sh BUILD_DIR [CORPUS_DIR]
# Builds tests/fuzz/quantity_oracle (needs Go and the module cache tests/cluster/build fills),
# replays every input through unit_fuzz_apiclient_quantity with FUZZ_QUANTITY_PRINT=1 and feeds
# the same strings to the oracle; prints the inputs whose results differ, exits 1 if any do.
# Inputs the oracle cannot take (a newline inside, the part after a NUL aside) or would take
# minutes on (an exponent of 4 digits or more: upstream computes 10^exp with big integers) are
# skipped.
set -euo pipefail
build=${1:?usage: quantity_diff.sh BUILD_DIR [CORPUS_DIR]}
here=$(cd "$(dirname "$0")" && pwd)
corpus=${2:-$here/corpus/apiclient_quantity}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$here/quantity_oracle" && GOFLAGS=-mod=mod GOPROXY=off GOSUMDB=off go build -o "$tmp/oracle" .)
# The usable inputs, each cut at its first NUL as the target cuts it: $tmp/in.N and line N of $tmp/lines.
n=$(python3 - "$corpus" "$tmp" <<'PY'
import os, re, sys
corpus, tmp = sys.argv[1], sys.argv[2]
n = 0
with open(os.path.join(tmp, "lines"), "wb") as lines:
    for name in sorted(os.listdir(corpus)):
        path = os.path.join(corpus, name)
        if not os.path.isfile(path):
            continue
        s = open(path, "rb").read().split(b"\0", 1)[0]
        if b"\n" in s or b"\r" in s or re.search(rb"[eE][+-]?0*[0-9]{4,}", s):
            continue
        open(os.path.join(tmp, "in.%d" % n), "wb").write(s)
        lines.write(s + b"\n")
        n += 1
print(n)
PY
)
[ "$n" -gt 0 ] || { echo "quantity_diff: no usable input in $corpus"; exit 1; }
# (the replay's own "replayed N inputs" line left out)
for ((i = 0; i < n; i++)); do FUZZ_QUANTITY_PRINT=1 "$build/tests/unit_fuzz_apiclient_quantity" "$tmp/in.$i"; done \
	| grep -E '^(ok|err)' >"$tmp/csched"
"$tmp/oracle" <"$tmp/lines" | awk '{ if ($1 == "err") print "err"; else print }' >"$tmp/upstream"
python3 - "$tmp" "$n" <<'PY'
import sys
tmp, n = sys.argv[1], int(sys.argv[2])
lines = open(tmp + "/lines", "rb").read().split(b"\n")[:n]
ours = open(tmp + "/csched").read().splitlines()
theirs = open(tmp + "/upstream").read().splitlines()
bad = [(l, a, b) for l, a, b in zip(lines, ours, theirs) if a != b]
for l, a, b in bad:
    print("differs: %r: csched %s, upstream %s" % (l, a, b))
if len(ours) != n or len(theirs) != n:
    print("quantity_diff: %d inputs, %d csched results, %d upstream results" % (n, len(ours), len(theirs)))
    sys.exit(1)
if bad:
    sys.exit(1)
print("quantity_diff: %d quantities, no difference from upstream" % n)
PY
