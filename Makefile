# kcmp-matrix. `make matrix` runs the whole matrix; `make test` runs the tests. README.md says more.

CC      ?= cc
CFLAGS  ?= -O2 -g
WARN    := -std=c11 -Wall -Wextra -Wshadow -Wmissing-prototypes -Werror
SAN     := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
# Each arch's kernels build in a thread of their own (harness/run.c).
THREADS := -pthread
# SHA-256 for cache keys and manifests (harness/digest.c): OpenSSL's libcrypto, libssl-dev
# JSON (matrix.json, kcidb.json; results.c reads matrix.json back): jansson, libjansson-dev
LIBS    := -lcrypto -ljansson

HARNESS_SRC := $(filter-out harness/main.c,$(wildcard harness/*.c))
HARNESS_HDR := $(wildcard harness/*.h)
BUILD       := build

# Settings passed to the harness; each empty one keeps the harness's default.
# TREES=6.1,6.12 picks kernel trees by matrix.conf's names (default: all; with KSRC: ksrc).
TREES    ?=
ARCH     ?=
VARIANTS ?=
ONLY     ?=
KSRC     ?=
CACHE    ?=
# QUESTION=name asks the question in questions/name/ (its matrix.conf, rules, guest); none: kcmp.
QUESTION ?=
RESULTS  ?= $(if $(QUESTION),results/$(QUESTION),results)
JOBS     ?=
FORCE    ?=
# FLAVOUR=debug adds matrix.conf's flavour of that name (its base fragments) to every kernel.
FLAVOUR  ?=
# UNSET=all|none|SYM,SYM: the symbols that also take the value unset (matrix.conf's unset line
# otherwise): left out of the cell's fragment, so Kconfig's default decides.
UNSET    ?=
SHARD    ?=
CC_WRAPPER ?=
PREVIOUS ?=
# ACCEPT_FAIL=1: the harness's exit 1 (some cell did not pass: a result, in the tables) ends
# make with 0, for CI steps that publish the tables; its 2 (it could not run) still fails.
# Without it make turns the harness's 1 into its own 2, and the two cannot be told apart.
ACCEPT_FAIL ?=
ARGS     ?=
QUESTION_ARGS = $(if $(QUESTION),--matrix questions/$(QUESTION))
HARNESS_ARGS = $(QUESTION_ARGS) $(if $(TREES),--trees $(TREES)) $(if $(ARCH),--arch $(ARCH)) $(if $(VARIANTS),--variants $(VARIANTS)) \
	$(if $(ONLY),--only '$(ONLY)') $(if $(KSRC),--ksrc $(KSRC)) $(if $(CACHE),--cache $(CACHE)) \
	$(if $(JOBS),--jobs $(JOBS)) $(if $(FORCE),--force $(FORCE)) $(if $(SHARD),--shard $(SHARD)) \
	$(if $(FLAVOUR),--flavour $(FLAVOUR)) $(if $(PREVIOUS),--previous $(PREVIOUS)) $(if $(CC_WRAPPER),--cc-wrapper '$(CC_WRAPPER)') \
	$(if $(UNSET),--unset '$(UNSET)') --results $(RESULTS) $(ARGS)

# make cell / make shell: one cell, named in full; its results go apart from the matrix's.
VARIANT  ?=
COMBO    ?=
BUSYBOX  ?=
CELL_RESULTS ?= results/one-cell
CELL_ARGS = $(QUESTION_ARGS) $(if $(TREES),--trees $(TREES)) --arch '$(ARCH)' --variants '$(VARIANT)' --only '$(COMBO)' --single \
	$(if $(KSRC),--ksrc $(KSRC)) $(if $(CACHE),--cache $(CACHE)) $(if $(JOBS),--jobs $(JOBS)) \
	$(if $(FORCE),--force $(FORCE)) $(if $(FLAVOUR),--flavour $(FLAVOUR)) $(if $(UNSET),--unset '$(UNSET)') \
	--results $(CELL_RESULTS) $(ARGS)
accept_fail = $(if $(ACCEPT_FAIL), || test $$? = 1)
need_cell = @test -n "$(ARCH)" -a -n "$(VARIANT)" -a -n "$(COMBO)" || { echo "make $@: give \
ARCH=, VARIANT= and COMBO= (all symbols, e.g. COMBO=EXPERT=y,KCMP=n,CHECKPOINT_RESTORE=n,DRM=n,EPOLL=y)" >&2; exit 2; }

# make diff OLD=previous/matrix.json [NEW=results/matrix.json]; make merge SHARDS="dir1 dir2 ..."
OLD    ?=
NEW    ?=
SHARDS ?=

.PHONY: all matrix plan cell shell diff merge harness-deps test test-binaries test-deps fresh-check arch-check nightly-check debug-check chaos bench fuzz deps clean clean-cache prune-cache verify-cache

all: $(BUILD)/kcmp-matrix

$(BUILD)/kcmp-matrix: harness/main.c $(HARNESS_SRC) $(HARNESS_HDR)
	@mkdir -p $(BUILD)
	$(CC) $(WARN) $(THREADS) $(CFLAGS) -o $@ harness/main.c $(HARNESS_SRC) $(LIBS)

# The same harness with AddressSanitizer and UBSan, for the tests.
$(BUILD)/kcmp-matrix-san: harness/main.c $(HARNESS_SRC) $(HARNESS_HDR)
	@mkdir -p $(BUILD)
	$(CC) $(WARN) $(THREADS) -O1 -g $(SAN) -o $@ harness/main.c $(HARNESS_SRC) $(LIBS)

$(BUILD)/unit-tests: tests/unit/*.c tests/unit/*.h $(HARNESS_SRC) $(HARNESS_HDR)
	@mkdir -p $(BUILD)
	$(CC) $(WARN) $(THREADS) -O1 -g $(SAN) -iquote harness -o $@ tests/unit/*.c $(HARNESS_SRC) $(LIBS)

$(BUILD)/e2e-tests: tests/e2e/*.c tests/unit/check.c tests/unit/check.h $(HARNESS_SRC) $(HARNESS_HDR)
	@mkdir -p $(BUILD)
	$(CC) $(WARN) $(THREADS) -O1 -g $(SAN) -iquote harness -iquote tests/unit -o $@ tests/e2e/*.c tests/unit/check.c $(HARNESS_SRC) $(LIBS)

# What building the harness itself needs (a C compiler and library, libcrypto and jansson's
# headers): all that make merge and make diff need, which build no kernel. make deps has these
# too (matrix/host.conf names them).
HARNESS_PACKAGES := gcc libc6-dev libssl-dev libjansson-dev
harness-deps:
	@scripts/ensure-deps $(HARNESS_PACKAGES)

deps:
	@TREES='$(TREES)' ARCH='$(ARCH)' QUESTION_DIR='$(if $(QUESTION),questions/$(QUESTION),matrix)' scripts/ensure-deps

matrix: deps $(BUILD)/kcmp-matrix
	$(BUILD)/kcmp-matrix $(HARNESS_ARGS)$(accept_fail)

# Every cell's requested, predicted and resolved values and its config-layer verdict, with no
# kernel built and no guest booted (results in results/plan/).
PLAN_RESULTS ?= results/plan
plan: deps $(BUILD)/kcmp-matrix
	$(BUILD)/kcmp-matrix $(HARNESS_ARGS) --config-only --results $(PLAN_RESULTS)

cell: deps $(BUILD)/kcmp-matrix
	$(need_cell)
	$(BUILD)/kcmp-matrix $(CELL_ARGS)

shell: deps $(BUILD)/kcmp-matrix
	$(need_cell)
	@scripts/ensure-deps busybox-static
	@bb='$(BUSYBOX)'; [ -n "$$bb" ] || bb=$$(CACHE='$(CACHE)' scripts/fetch-busybox '$(ARCH)') && \
	echo "$(BUILD)/kcmp-matrix $(CELL_ARGS) --shell --busybox $$bb" && \
	$(BUILD)/kcmp-matrix $(CELL_ARGS) --shell --busybox "$$bb"

diff: harness-deps $(BUILD)/kcmp-matrix
	@test -n "$(OLD)" || { echo "make diff: give OLD=path/to/previous/matrix.json" >&2; exit 2; }
	$(BUILD)/kcmp-matrix diff --results $(RESULTS) $(if $(FLAVOUR),--flavour $(FLAVOUR)) $(OLD) $(NEW)

merge: harness-deps $(BUILD)/kcmp-matrix
	@test -n "$(SHARDS)" || { echo "make merge: give SHARDS=\"dir1 dir2 ...\" (each a shard's results)" >&2; exit 2; }
	$(BUILD)/kcmp-matrix merge --results $(RESULTS) $(if $(FLAVOUR),--flavour $(FLAVOUR)) $(if $(PREVIOUS),--previous $(PREVIOUS)) $(SHARDS)$(accept_fail)

# The tests also need a browser for the page and xmllint for the JUnit schema.
test: test-deps test-binaries
	@scripts/run-tests $(BUILD)

# What make test runs; each is one compiler run over every source, so `make -j test-binaries`
# builds them at once (.ci/run does).
test-binaries: $(BUILD)/unit-tests $(BUILD)/e2e-tests $(BUILD)/kcmp-matrix-san

# What make test needs beyond make matrix: python3 for the kernel's KTAP parser (kunit.py),
# python3-jsonschema for the KCIDB schema check (tests/kcidb_check.py), python3-yaml for the
# nightly workflow's (scripts/nightly-check --lint),
# busybox-static for make shell, a browser for the page and xmllint for the JUnit schema.
test-deps: deps
	@scripts/ensure-deps python3 python3-jsonschema python3-yaml busybox-static chromium libxml2-utils
	@# the plan of every arch (e2e) runs Kconfig with each arch's compiler
	@ARCH=all scripts/ensure-deps --compilers

# A new Debian 12 root (debootstrap), a clean clone of this repository's HEAD in it, and there
# make test's set-up from nothing, the preflight on both arches and one real cell per arch.
fresh-check:
	@scripts/fresh-check

# One real cell per extra arch (i386, armhf, riscv64, ppc64el, s390x), cold: their packages,
# five clean kernel builds, five boots in each arch's QEMU (scripts/arch-check).
arch-check:
	@scripts/arch-check

# The nightly workflow's own steps (.github/workflows/nightly.yml), each job in a new Debian 12
# root as its container is: two shards of four real cells (one stopped midway), the merge, the
# page, a second night's diff and a night with nothing to merge (scripts/nightly-check).
nightly-check:
	@scripts/ensure-deps python3 python3-yaml debootstrap git
	@scripts/nightly-check

# The end-to-end tests too heavy for make test's time budget (their names start with heavy_):
# the debug flavour's detectors, each fired on a real kernel of that flavour. Its first kernel
# is a clean debug build (about 5 minutes here) unless the cache holds it (the nightly's debug
# job). Ends with the same "N passed, N failed" line.
debug-check: deps $(BUILD)/e2e-tests $(BUILD)/kcmp-matrix-san
	@$(BUILD)/e2e-tests heavy_

# Kills the harness at random moments, resumes, and checks the tables (CHAOS_RUNS, default 20).
chaos: deps $(BUILD)/kcmp-matrix
	@scripts/chaos

clean:
	rm -rf $(BUILD)

clean-cache:
	rm -rf "$${CACHE:-$${XDG_CACHE_HOME:-$$HOME/.cache}/kcmp-matrix}"

# The cache entries (configs, kernels, boots) no run used for DAYS days go: those of an older
# tarball, compiler or guest, which no run asks for again. Working state stays.
DAYS ?= 30
# Every cache entry checked against its manifest; a corrupt one is thrown away (exit 1 if any).
verify-cache: $(BUILD)/kcmp-matrix
	$(BUILD)/kcmp-matrix verify-cache $(if $(CACHE),--cache $(CACHE))

prune-cache: $(BUILD)/kcmp-matrix
	$(BUILD)/kcmp-matrix prune-cache $(if $(CACHE),--cache $(CACHE)) --unused-days $(DAYS)

# Fuzz the two parsers of what comes from outside for FUZZ_SECONDS each (libFuzzer): the console
# parser (seeded with real serial logs) and the reader of matrix.json that merge and diff use
# (seeded with a real run's, cut short). Crashes land in build/fuzz-artifacts/; each one found
# becomes a unit test (tests/unit/ktap_test.c, tests/unit/results_test.c).
FUZZ_SECONDS ?= 600
FUZZ_FLAGS := -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -iquote harness
fuzz:
	@scripts/ensure-deps clang libclang-rt-14-dev
	@mkdir -p $(BUILD)/fuzz-corpus/ktap $(BUILD)/fuzz-corpus/results $(BUILD)/fuzz-artifacts
	clang $(FUZZ_FLAGS) -o $(BUILD)/ktap-fuzz tests/fuzz/ktap_fuzz.c harness/ktap.c harness/util.c
	clang $(FUZZ_FLAGS) $(THREADS) -o $(BUILD)/results-fuzz tests/fuzz/results_fuzz.c \
		$(HARNESS_SRC) $(LIBS)
	$(BUILD)/ktap-fuzz -max_total_time=$(FUZZ_SECONDS) -artifact_prefix=$(BUILD)/fuzz-artifacts/ \
		$(BUILD)/fuzz-corpus/ktap tests/data
	$(BUILD)/results-fuzz -max_total_time=$(FUZZ_SECONDS) \
		-artifact_prefix=$(BUILD)/fuzz-artifacts/results- \
		$(BUILD)/fuzz-corpus/results tests/data/matrix-json

# Speed figures (issue 4): cold matrix from an empty cache, F, naive estimate, warm rerun.
bench: deps $(BUILD)/kcmp-matrix
	@HARNESS=$(BUILD)/kcmp-matrix bench/bench.sh
