# Entry points (docs, CI and tools rely on these names):
#   make deps    install Debian build dependencies (idempotent)
#   make         build build/csched (RelWithDebInfo: -O2 -g; BUILD_TYPE=Release for -O3)
#   make test    unit + integration tests, then both under ASan+UBSan and TSan, the unit tests
#                under valgrind
#   make demo    the main job on an embedded default: local control plane, simulated nodes, a workload
#   make bench   benchmarks side by side with the upstream kube-scheduler (not part of make test),
#                from a Release build of their own in build-bench; BENCH_ARGS: tests/bench/run's
#                options (make bench-scale: the 15,000-node start-up and failover run)
#   make soak    churn soak against a local control plane, SOAK_MINUTES (default 30; not in make test)
#   make differential  csched vs upstream's own scheduler code on SEEDS random states (needs Go)
#   make differential-dra  the same on DRA_SEEDS random DRA states (devices, claims)
#   make cel-conformance  the cel-spec conformance files (CEL_SPEC_DIR, default ../shared/cel-spec)
#                through the CEL evaluator: per-file counts and "N passed, N failed, N skipped"
#   make fuzz    every libFuzzer target for FUZZ_SECONDS each (clang, ASan+UBSan; tests/fuzz/README.md)
SHELL := /bin/bash
# No "Entering directory" lines from the sub-makes (ours and CMake's).
MAKEFLAGS += --no-print-directory
JOBS ?= $(shell nproc)
BUILD ?= build
BUILD_TYPE ?= RelWithDebInfo
# Every published benchmark figure comes from a Release (-O3) build: bench keeps its own.
BENCH_BUILD ?= build-bench
DEPS := cmake make gcc pkg-config libcurl4-openssl-dev libssl-dev libyajl-dev libyaml-dev libmicrohttpd-dev libgnutls28-dev libpcre2-dev \
	protobuf-c-compiler libprotobuf-c-dev \
	libcmocka-dev valgrind openssl curl ca-certificates util-linux procps python3 python3-yaml iproute2 \
	clang libclang-rt-14-dev libfuzzer-14-dev

.PHONY: all deps build test test-unit test-integration test-asan test-tsan test-valgrind cluster demo bench bench-scale soak clean \
	differential differential-dra fuzz cel-conformance

all: build

deps:
	@missing=$$(for p in $(DEPS); do dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q 'install ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		echo "make deps: installing $$missing"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing; \
	else echo "make deps: all present"; fi

build:
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)

cluster:
	tests/cluster/build

test-unit: build
	cd $(BUILD) && ctest -L unit --output-on-failure -j $(JOBS)

test-integration: build cluster
	cd $(BUILD) && ctest -L integration --output-on-failure

# The sanitizer runs: the unit suite, then the integration suite against the real API server
# (the in-process schedulers and the csched binaries the tests spawn are the sanitized ones; a
# report aborts the process, which fails its test). ASAN_IT / TSAN_IT: ctest -R regexes of the
# integration programs run ("" = none); the defaults and the time they cost are in
# docs/operations.md (Testing).
ASAN_OPTS := ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
TSAN_OPTS := TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1
ASAN_IT ?= .
TSAN_IT ?= .
test-asan: cluster
	@cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DCSCHED_SANITIZE=address >/dev/null
	@cmake --build build-asan -j $(JOBS)
	cd build-asan && $(ASAN_OPTS) ctest -L unit --output-on-failure -j $(JOBS)
	@if [ -n "$(ASAN_IT)" ]; then cd build-asan && $(ASAN_OPTS) ctest -L integration -R '$(ASAN_IT)' --output-on-failure; fi

test-tsan: cluster
	@cmake -S . -B build-tsan -DCMAKE_BUILD_TYPE=Debug -DCSCHED_SANITIZE=thread >/dev/null
	@cmake --build build-tsan -j $(JOBS)
	cd build-tsan && $(TSAN_OPTS) ctest -L unit --output-on-failure -j $(JOBS)
	@if [ -n "$(TSAN_IT)" ]; then cd build-tsan && $(TSAN_OPTS) ctest -L integration -R '$(TSAN_IT)' --output-on-failure; fi

# Every unit program (with no arguments the fuzz replays read their seed corpus) under valgrind:
# any error or leak (definite, indirect, possible) fails it.
test-valgrind: build
	@set -e; n=0; for t in $(BUILD)/tests/unit_*; do \
		echo "valgrind $$t"; \
		valgrind -q --leak-check=full --show-leak-kinds=definite,indirect,possible \
			--errors-for-leak-kinds=definite,indirect,possible --error-exitcode=99 $$t >/dev/null; \
		n=$$((n + 1)); \
	done; echo "valgrind: $$n unit programs clean"

# The differential test (tests/differential/README.md): SEEDS random states from SEED0 through
# upstream v1.37.2's own scheduler code (tests/oracle, built with the Go module cache that
# tests/cluster/build fills) and through csched's, compared node by node. UPDATE=1 also rewrites
# the checked-in expected outputs that the replay test (ctest -L differential) reads.
SEED0 ?= 0
SEEDS ?= 1000
ORACLE_JOBS ?= 16
# Alpha gates of the API server, so that it accepts the pod fields NodeDeclaredFeatures infers
# from (hostNetwork with hostUsers false; bindMountOptions); kube-scheduler reads neither gate.
ORACLE_GATES ?= UserNamespacesHostNetworkSupport=true,VolumeBindMountOptions=true
# DIFF_NAME: the checked-in file UPDATE=1 rewrites (tests/differential/DIFF_NAME.jsonl.gz).
DIFF_NAME ?= expected
differential: build
	@set -euo pipefail; d=$(BUILD)/differential; mkdir -p $$d; \
	oracle=$$(tests/oracle/build.sh); t0=$$(date +%s); \
	$(BUILD)/tests/differential --states $(SEED0) $(SEEDS) | nice $$oracle -feature-gates $(ORACLE_GATES) -jsonl -j $(ORACLE_JOBS) \
		| $(BUILD)/tests/differential --strip $(SEED0) >$$d/$(DIFF_NAME).jsonl; \
	echo "differential: oracle ran $(SEEDS) states in $$(( $$(date +%s) - t0 )) s"; \
	if [ "$(UPDATE)" = 1 ]; then gzip -9n <$$d/$(DIFF_NAME).jsonl >tests/differential/$(DIFF_NAME).jsonl.gz; \
		echo "differential: rewrote tests/differential/$(DIFF_NAME).jsonl.gz"; fi; \
	rc=0; $(BUILD)/tests/differential --max $${MAX:-40} $$d/$(DIFF_NAME).jsonl || rc=$$?; \
	if [ $$rc = 77 ]; then echo "differential: skipped (the plugin the states need is not in the registry)"; rc=0; fi; \
	exit $$rc

# The DRA states (seeds from 1,000,000: devices, classes, claims; tests/differential/README.md),
# DRA_SEEDS of them, against their own checked-in file expected-dra.jsonl.gz (UPDATE=1 rewrites it).
DRA_SEEDS ?= 2000
differential-dra:
	@$(MAKE) differential SEED0=1000000 SEEDS=$(DRA_SEEDS) DIFF_NAME=expected-dra

# cel-spec's conformance files (tests/cel/conformance.c): every test of the in-scope files; a
# missing directory is reported and skipped. V=1 lists each skipped test with its reason. Fails
# on a failure not in tests/cel/known_failures.txt (and names listed tests that now pass).
CEL_SPEC_DIR ?= ../shared/cel-spec
cel-conformance: build
	@$(BUILD)/tests/cel_conformance --absent-ok --baseline tests/cel/known_failures.txt $(if $(V),-v) $(CEL_SPEC_DIR)

# Every fuzz target (tests/fuzz/fuzz_*.c) built with clang's libFuzzer under ASan+UBSan in
# FUZZ_BUILD, then run for FUZZ_SECONDS from its seed corpus (grown into FUZZ_BUILD/corpus/,
# the committed corpus is not touched). A crash fails it; the input is left in FUZZ_BUILD/crashes/
# (commit it as tests/fuzz/corpus/<target>/regression-*, which every build then replays).
FUZZ_SECONDS ?= 20
FUZZ_BUILD ?= build-fuzz
fuzz:
	@CC=clang cmake -S . -B $(FUZZ_BUILD) -DCMAKE_BUILD_TYPE=Debug -DCSCHED_SANITIZE=address >/dev/null
	@grep -q '^CSCHED_HAVE_LIBFUZZER:INTERNAL=1' $(FUZZ_BUILD)/CMakeCache.txt || \
		{ echo "make fuzz: clang cannot link -fsanitize=fuzzer (make deps)"; exit 1; }
	@set -e; targets=$$(cd tests/fuzz && ls fuzz_*.c | sed 's/\.c$$//'); \
	cmake --build $(FUZZ_BUILD) -j $(JOBS) --target $$targets; \
	mkdir -p $(FUZZ_BUILD)/crashes; n=0; \
	for t in $$targets; do \
		c=$(FUZZ_BUILD)/corpus/$${t#fuzz_}; mkdir -p $$c; \
		echo "fuzz: $$t for $(FUZZ_SECONDS) s"; \
		ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		$(FUZZ_BUILD)/tests/$$t -max_total_time=$(FUZZ_SECONDS) -timeout=10 -rss_limit_mb=2048 \
			-print_final_stats=1 -artifact_prefix=$(FUZZ_BUILD)/crashes/$$t- \
			$$c tests/fuzz/corpus/$${t#fuzz_} >$(FUZZ_BUILD)/$$t.log 2>&1 || \
			{ tail -n 60 $(FUZZ_BUILD)/$$t.log; echo "fuzz: $$t failed (inputs in $(FUZZ_BUILD)/crashes/)"; exit 1; }; \
		grep -E '^stat::(number_of_executed_units|new_units_added):' $(FUZZ_BUILD)/$$t.log | tr '\n' ' '; echo; \
		n=$$((n + 1)); \
	done; echo "fuzz: $$n targets, no crash"

# The README's test command; .ci/run runs exactly this.
test: deps
	$(MAKE) test-unit
	$(MAKE) test-integration
	$(MAKE) test-asan
	$(MAKE) test-tsan
	$(MAKE) test-valgrind
	@echo "make test: all suites passed"

demo: deps build cluster
	tests/demo/run

# Churn soak (not in make test): pods and nodes created and deleted for SOAK_MINUTES against a
# local control plane; fails on a rising RSS/fd/thread slope or a lost or double-bound pod
# (tests/soak/soak.py).
SOAK_MINUTES ?= 30
soak: build cluster
	SOAK_MINUTES=$(SOAK_MINUTES) BUILD=$(BUILD) tests/soak/run

bench: deps cluster
	@cmake -S . -B $(BENCH_BUILD) -DCMAKE_BUILD_TYPE=Release >/dev/null
	@cmake --build $(BENCH_BUILD) -j $(JOBS) --target csched bench_cycle bench_ceiling bench_noop_extender
	BUILD=$(BENCH_BUILD) tests/bench/run $(BENCH_ARGS)

# Start-up at scale (15,000 nodes, 150,000 pods) and the leader failover: 10-25 minutes.
bench-scale:
	@$(MAKE) bench BENCH_ARGS="-w Startup_15000Nodes_150000Pods -s csched,upstream --no-cycle"

clean:
	rm -rf $(BUILD) build-asan build-tsan $(BENCH_BUILD) build-fuzz

# The container image without a container engine: buildah (vfs storage, chroot isolation) and
# Debian base images made with debootstrap; needs root. Not part of make test.
.PHONY: image
image:
	tests/container/build --output $(BUILD)/csched.oci.tar
