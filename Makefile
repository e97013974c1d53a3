# The endovisor book and its prototype.
#
#   make book    build the HTML book in book/site/, booting the guest first
#                for every suite that has no logs yet
#   make hello   boot the guest once: the hello sandbox kernel on two vCPUs;
#                the console lands in prototype/.build/hello.log
#   make bench   every measurement, BOOTS boots each (default 5): hello (once),
#                sched-perf, sched-fair, mem-perf and linux-perf; and scale, SCALE_BOOTS boots
#                (default 3); logs in prototype/.build/SUITE-N.log.  The
#                defaults, and each suite's bound on a boot, are the suite's
#                plan in internal/guest/run.go, which mkbook follows too
#   make scale   how the costs grow: 1 to 100,000 heap blocks, 1 to 512
#                frames, 2 and 16 vCPUs, 4 to 64 MiB forks, 1 to 64
#                sandboxes; SCALE_BOOTS boots
#   make sched-test, make mem-test, make proc-test, make hostile
#                functional tests in the guest, one boot
#   make linux-abi
#                Debian's busybox-static run unmodified by the linux kernel
#                proper, one boot; prototype/.build/linux-abi.log
#   make linux-conf
#                Linux's own conformance test (nolibc-test, of the pinned
#                kernel's source), built with nolibc and with glibc, on
#                Linux, in the sandbox and under gVisor, one boot
#   make linux-perf
#                one benchmark binary, unmodified, on Linux and in the
#                sandbox in the same boot; BOOTS boots
#   make fuzz-services
#                the services called with generated arguments for FUZZ_MS
#                (default 20000) on two racing vCPUs, and four runs killed at
#                random points, one boot (kernels/fuzz); FUZZ_SEED=N draws
#                a failed run again
#   make soak    SOAK rounds (default 20) of one boot of each bench suite,
#                the process suite, the hostile suite, the fuzzer and linux-abi,
#                reporting every boot that failed and why; summary in prototype/.build/soak.log
#   make check   check the book against the logs and the code; write nothing
#   make sparse  run sparse, the kernel's checker of its annotations (__user,
#                __rcu, lock contexts), over every module against the pinned
#                headers; any warning fails
#   make layers  read who calls whom among the endovisor's files from the
#                built objects; a cycle of more than three files that
#                prototype/guest/layers.allow does not list fails
#   make runs    keep this run's logs in book/runs/RUN (default today's
#                date), one of the project's stored runs, and check the
#                book against all of them pooled (mkbook margins)
#   make test    go vet, gofmt, sparse, checkpatch, layers, lint, every test
#                (which boots the guest, and checks the real book against the runs in book/runs pooled, by the
#                rules of mkbook margins: cmd/mkbook/runs_test.go), and the check of
#                the real book against this machine's logs (which runs the
#                bench if it has no logs);
#                go test -short ./... runs those that boot nothing and
#                start no browser
#   make fuzz    the fuzz targets of the log parser, the placeholders and the
#                scanners of the sources, FUZZTIME each (default 1m); make test runs their seeds only
#   make clean   remove everything built
GO ?= go
BOOTS ?=
SCALE_BOOTS ?=
SOAK ?= 20
FUZZTIME ?= 1m
BUILD := prototype/.build
GUEST := $(GO) run ./tools/guest
# -boots N where N is set; the suite's plan otherwise.
boots = $(if $(1),-boots $(1))
MKBOOK := $(GO) run ./cmd/mkbook

.PHONY: all book hello bench sched-test sched-perf sched-fair mem-test mem-perf proc-test linux-abi linux-conf \
	linux-perf hostile fuzz-services scale soak debug-kernel debug-soak check runs sparse checkpatch layers lint test fuzz clean

all: book

hello:
	$(GUEST) run hello

sched-test:
	$(GUEST) run sched-test

sched-perf:
	$(GUEST) run $(call boots,$(BOOTS)) sched-perf

sched-fair:
	$(GUEST) run $(call boots,$(BOOTS)) sched-fair

mem-test:
	$(GUEST) run mem-test

mem-perf:
	$(GUEST) run $(call boots,$(BOOTS)) mem-perf

scale:
	$(GUEST) run $(call boots,$(SCALE_BOOTS)) scale

proc-test:
	$(GUEST) run proc-test

linux-abi:
	$(GUEST) run linux-abi

linux-conf:
	$(GUEST) run linux-conf

linux-perf:
	$(GUEST) run $(call boots,$(BOOTS)) linux-perf

hostile:
	$(GUEST) run hostile

# FUZZ_SEED and FUZZ_MS reach the guest's command line (internal/guest).
export FUZZ_SEED FUZZ_MS
fuzz-services:
	$(GUEST) run fuzz

soak:
	$(GUEST) soak -rounds $(SOAK) hello sched-perf sched-fair mem-perf linux-perf proc-test hostile fuzz linux-abi linux-conf

# The debug kernel (prototype/guest/debug.config: KASAN, lockdep, UBSAN,
# KFENCE and the rest), built once into .build/debug-kernel/; debug-soak
# boots every functional and hostile suite and the Linux-program suite on
# it DEBUG_SOAK rounds, and any report in a console fails its boot.
# DEBUG_KERNEL=kcsan does both with the second flavour, KCSAN in place of
# KASAN (prototype/guest/kcsan.config), in .build/kcsan-kernel/.
DEBUG_SOAK ?= 20
DEBUG_KERNEL ?= debug
debug-kernel:
	GUEST_KERNEL=$(DEBUG_KERNEL) $(GUEST) debug-kernel
debug-soak:
	GUEST_KERNEL=$(DEBUG_KERNEL) $(GUEST) soak -rounds $(DEBUG_SOAK) -timeout 5m hello sched-test mem-test proc-test hostile fuzz linux-abi

bench: hello sched-perf sched-fair mem-perf linux-perf scale

# The book reads every suite's logs; a suite with none is run first.
$(BUILD)/hello.log:
	$(GUEST) run hello
$(BUILD)/sched-perf-1.log:
	$(GUEST) run $(call boots,$(BOOTS)) sched-perf
$(BUILD)/sched-fair-1.log:
	$(GUEST) run $(call boots,$(BOOTS)) sched-fair
$(BUILD)/mem-perf-1.log:
	$(GUEST) run $(call boots,$(BOOTS)) mem-perf
$(BUILD)/linux-perf-1.log:
	$(GUEST) run $(call boots,$(BOOTS)) linux-perf
$(BUILD)/scale-1.log:
	$(GUEST) run $(call boots,$(SCALE_BOOTS)) scale
$(BUILD)/proc-test.log:
	$(GUEST) run proc-test
$(BUILD)/mem-test.log:
	$(GUEST) run mem-test
$(BUILD)/hostile.log:
	$(GUEST) run hostile
$(BUILD)/linux-abi.log:
	$(GUEST) run linux-abi
$(BUILD)/linux-conf.log:
	$(GUEST) run linux-conf
LOGS := $(BUILD)/hello.log $(BUILD)/sched-perf-1.log $(BUILD)/sched-fair-1.log \
	$(BUILD)/mem-perf-1.log $(BUILD)/scale-1.log $(BUILD)/proc-test.log $(BUILD)/mem-test.log \
	$(BUILD)/hostile.log $(BUILD)/linux-abi.log $(BUILD)/linux-conf.log $(BUILD)/linux-perf-1.log

# make runs the suites the book needs that have no logs (make -B book runs
# them all again); mkbook boots nothing, and names any suite a chapter
# draws on that has none.
book: $(LOGS)
	$(MKBOOK) build

check: $(LOGS)
	$(MKBOOK) check

# The logs of this run become one of the book's stored runs,
# book/runs/RUN, against which, pooled, go test checks every claim with a
# margin and the tail rule (cmd/mkbook/margins.go, runs_test.go).  The
# run is kept either way: a claim it shows fragile wants a sentence the
# data bears, not a run left out.
RUN ?= $(shell date +%Y-%m-%d)
runs: $(LOGS)
	mkdir -p book/runs/$(RUN)
	cp $(BUILD)/hello.log $(BUILD)/sched-perf-*.log $(BUILD)/sched-fair-*.log $(BUILD)/mem-perf-*.log \
		$(BUILD)/linux-perf-*.log $(BUILD)/scale-*.log $(BUILD)/proc-test.log $(BUILD)/mem-test.log \
		$(BUILD)/hostile.log $(BUILD)/linux-abi.log $(BUILD)/linux-conf.log book/runs/$(RUN)/
	$(MKBOOK) -runs book/runs -margin 0.05 margins >$(BUILD)/margins.txt || { grep FRAGILE $(BUILD)/margins.txt; exit 1; }

sparse:
	$(GUEST) sparse

# The pinned kernel's own checkpatch.pl --strict over the kernel-mode C
# and assembly; a finding prototype/guest/checkpatch.allow does not list, with
# its count and why, fails.
checkpatch:
	$(GUEST) checkpatch

layers:
	$(GUEST) layers

# shellcheck over the guest's /init and suites (busybox sh) and CI's
# script, warnings and errors (its notes and style hints, such as quoting
# a variable that holds a number, are not findings), and staticcheck (a
# tool of go.mod) over the Go.
lint:
	shellcheck -S warning -s sh prototype/guest/init prototype/guest/suites/*.sh prototype/kernels/*/*.sh .ci/run
	$(GO) tool staticcheck ./...

test:
	$(GO) vet ./...
	@unformatted=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$unformatted" ]; then echo "gofmt would change: $$unformatted"; exit 1; fi
	$(GUEST) sparse
	$(GUEST) checkpatch
	$(GUEST) layers
	$(MAKE) lint
	$(GO) test -count=1 -timeout 60m ./...
	$(MAKE) check

fuzz:
	$(GO) test -run '^$$' -fuzz '^FuzzRead$$' -fuzztime $(FUZZTIME) ./internal/figlog
	$(GO) test -run '^$$' -fuzz '^FuzzParseFields$$' -fuzztime $(FUZZTIME) ./internal/figlog
	$(GO) test -run '^$$' -fuzz '^FuzzExpand$$' -fuzztime $(FUZZTIME) ./cmd/mkbook
	$(GO) test -run '^$$' -fuzz '^FuzzScan$$' -fuzztime $(FUZZTIME) ./internal/srcindex

clean:
	rm -rf $(BUILD) book/site
