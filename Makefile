# SPDX-License-Identifier: GPL-2.0
#
# Out-of-tree build of the RDS modules, the tools and the selftests.
#
#   make                 build the modules for the default kernel (KDIR below)
#   make KVER=X          build the modules for kernel X (KDIR=/lib/modules/X/build)
#   make tools selftests build the user space programs into build/bin/
#   make check [KVER=X]  build everything, run the selftests in QEMU guests, print TAP
#   make check SERIES=6.12  the same on the newest kernel of another Debian series
#                        (installed first, like the rest of what check needs)
#   make run [KVER=X]    build everything and run selftests/demo.sh in a guest
#   make bench [KVER=X]  ours against the in-tree RDS in alternating guests:
#                        build/bench/results.{json,md,svg,png} (bench/bench.sh);
#                        BENCH_PROFILE=smoke|latency|deadpeer|ibmem, BENCH_CPUS=1 (guests of one CPU)
#   make fuzz [KVER=X] [FUZZ_MINUTES=N]  selftests/fuzz/ in a guest: rds_fuzz
#                        for N minutes (default 10), then trinity on AF_RDS
#   make soak [KVER=X] [SOAK_MINUTES=N]  RDS/TCP traffic in a guest for N minutes
#                        (default 10) under connection resets, every message
#                        checked exactly once and in order
#   make lint            checkpatch --strict, sparse (C=2) and a W=1 build; fails on findings
#   make dkms-install    register the sources with DKMS (/usr/src/rds-VERSION) and
#                        build them for every installed kernel with headers;
#                        make dkms-uninstall takes them out again
#   make install         modules_install into /lib/modules/KVER/updates, then depmod
#                        (modprobe then prefers ours to the in-tree rds: the selftests
#                        never need it)
#
# Each kernel gets its own build tree, build/<KVER>/: the sources are copied there
# (rsync keeps timestamps, so rebuilds stay incremental) and the .ko files end up flat
# in build/<KVER>/modules/, which is where the selftests look for them.

# Kernel discovery. KVER and KDIR given on the command line win (make passes
# them on to every sub-make). Otherwise: the running kernel's headers, else
# the newest Debian amd64 headers of the SERIES install-deps installs whose
# kernel image is installed (the guests boot it), else the newest such
# headers of any series, else the newest Debian amd64 headers. So installing
# a second series (6.12) next to it changes nothing until KVER asks for it.
# SYSROOT prefixes every path looked at, so that a selftest can point
# discovery at a made-up tree.
#
# The results are deliberately not exported: `make check` and `make run`
# install missing packages first and then start a new make, which must look
# again instead of inheriting what this one found before the headers existed.
SYSROOT ?=
SERIES ?= 6.1
headers = $(sort $(wildcard $(SYSROOT)/usr/src/linux-headers-*-amd64))
booted = $(foreach h,$(headers),$(if $(wildcard $(SYSROOT)/boot/vmlinuz-$(h:$(SYSROOT)/usr/src/linux-headers-%=%)),$(h)))
newest = $(shell printf '%s\n' $(1) | sort -V | tail -n 1)
in_series = $(filter $(SYSROOT)/usr/src/linux-headers-$(SERIES).%,$(1))

ifneq ($(KVER),)
ifeq ($(KDIR),)
KDIR := $(SYSROOT)/lib/modules/$(KVER)/build
endif
else
ifeq ($(KDIR),)
KDIR := $(or $(wildcard $(SYSROOT)/lib/modules/$(shell uname -r)/build), \
	     $(call newest,$(call in_series,$(booted))), \
	     $(call newest,$(booted)), $(call newest,$(headers)))
endif
KVER := $(shell sed -n 's/^\#define UTS_RELEASE "\(.*\)"/\1/p' \
	  $(KDIR)/include/generated/utsrelease.h 2>/dev/null)
endif

BUILD ?= $(CURDIR)/build
B := $(BUILD)/$(KVER)

# What a kernel build needs from the checkout. Build products in the copy are
# excluded, which also protects them from --delete.
KSRC := $(wildcard Kbuild net include uapi)
RSYNC := rsync -a --delete --exclude='*.o' --exclude='*.ko' --exclude='.*.cmd' \
	 --exclude='*.mod' --exclude='*.mod.c' --exclude='modules.order' \
	 --exclude='Module.symvers' --exclude='.tmp_*'

# What `make check` and `make run` run first; a selftest replaces it. It
# learns the kernel asked for on the command line (KVER=, SERIES=), not the
# one discovery found, which is installed already.
DEPS ?= selftests/vm/install-deps.sh
asked = $(if $(filter command line environment,$(origin $(1))),$($(1)))
DEPS_ENV = RDS_KVER="$(call asked,KVER)" RDS_SERIES="$(call asked,SERIES)"

.PHONY: all modules clean distclean install tools selftests run check lint kdir \
	kernel-info run-now check-now kernel-info-now bench bench-now fuzz fuzz-now \
	soak soak-now \
	dkms-install dkms-uninstall dkms-src

all: modules

kdir:
	@test -n "$(KVER)" -a -d "$(KDIR)" || { \
		echo "No kernel headers: KDIR='$(KDIR)' KVER='$(KVER)'." >&2; \
		echo "Install them (apt-get install linux-headers-amd64; \`make check\` and" >&2; \
		echo "\`make run\` do it for you as root), or pass KVER= or KDIR=." >&2; exit 1; }

modules: kdir
	@mkdir -p $(B)/modules
	$(RSYNC) $(KSRC) $(B)/
	$(MAKE) -C $(KDIR) M=$(B) NOSTDINC_FLAGS="-I$(CURDIR)/uapi -I$(CURDIR)/include" modules
	@rm -f $(B)/modules/*.ko
	@find $(B) -path $(B)/modules -prune -o -name '*.ko' -print | \
		xargs -r cp -t $(B)/modules/
	@echo "Modules for $(KVER): $$(cd $(B)/modules && echo *.ko)"

install: modules
	$(MAKE) -C $(KDIR) M=$(B) INSTALL_MOD_DIR=updates modules_install
	depmod $(if $(INSTALL_MOD_PATH),-b $(INSTALL_MOD_PATH)) -a $(KVER)

# The version DKMS and the Debian packages carry: debian/changelog's.
VERSION := $(shell sed -n '1s/^[^(]*(\([^)]*\)).*/\1/p' debian/changelog 2>/dev/null)
DKMS_SRC = $(DESTDIR)/usr/src/rds-$(VERSION)

# What debian/rules puts in rds-dkms too: the kbuild sources and dkms.conf.
dkms-src:
	@test -n "$(VERSION)" || { echo "no version in debian/changelog" >&2; exit 1; }
	rm -rf $(DKMS_SRC)
	mkdir -p $(DKMS_SRC)
	cp -r $(KSRC) $(DKMS_SRC)/
	sed 's/#MODULE_VERSION#/$(VERSION)/' dkms.conf >$(DKMS_SRC)/dkms.conf

# dkms install fails for a kernel without headers; those are skipped.
# --force-version-override: neither ours nor the in-tree rds_tcp.ko has a
# version, which DKMS takes for "the same module" and would keep the
# kernel's (debian/rules does the same for the package).
dkms-install: dkms-src
	dkms add rds/$(VERSION)
	@for k in $$(ls /lib/modules); do \
		[ -d /lib/modules/$$k/build ] || continue; \
		echo "dkms: building rds $(VERSION) for $$k"; \
		dkms install --force-version-override rds/$(VERSION) -k $$k || exit 1; \
	done

dkms-uninstall:
	-dkms remove rds/$(VERSION) --all
	rm -rf $(DKMS_SRC)

tools:
	@if [ -f tools/Makefile ]; then $(MAKE) -C tools; else echo "tools: no tools/Makefile yet"; fi

selftests:
	$(MAKE) -C selftests

# The README's two commands. Each installs what is missing (on a fresh machine:
# the kernel headers, QEMU, busybox...), then starts a new make that discovers
# the kernel now that its headers are there, and builds and runs in it.
run check kernel-info:
	@$(DEPS_ENV) $(DEPS)
	@$(MAKE) --no-print-directory $@-now

# The links' limits (iperf3, sockperf, perftest over rxe), the profiles
# (perf) and the plot need a few more packages.
bench:
	@RDS_DEPS_EXTRA="iperf3 sockperf perftest linux-perf gnuplot-nox" $(DEPS_ENV) $(DEPS)
	@$(MAKE) --no-print-directory $@-now

bench-now: modules tools selftests
	bench/bench.sh --kver $(KVER) $(if $(BENCH_PROFILE),--profile $(BENCH_PROFILE)) $(if $(BENCH_CPUS),--cpus $(BENCH_CPUS))

# The demo's rds-ping prints round trips: on the TSC, not the tests'
# jiffies (run-guest.sh says why they count ticks), whose 4 ms steps
# would show 4000 and 0 usec.
run-now: modules tools selftests
	selftests/vm/run-guest.sh --kver $(KVER) --append "tsc=reliable clocksource=tsc" \
		-- selftests/demo.sh

check-now:
	@mkdir -p $(BUILD)
	@$(MAKE) --no-print-directory modules tools selftests >$(BUILD)/check-build-$(KVER).log 2>&1 || \
		{ tail -n 50 $(BUILD)/check-build-$(KVER).log; echo "build failed (see build/check-build-$(KVER).log)"; \
		  echo "0 passed, 1 failed"; exit 1; }
	@selftests/vm/check.sh --kver $(KVER)

# The fuzzers for as long as asked: rds_fuzz gets the minutes (a quarter
# more as nobody), trinity 200 calls a minute as root and as nobody (it
# makes about 1,000 a minute under TCG); the limits leave room for the
# boot and the checks after each run.
FUZZ_MINUTES ?= 10
fuzz:
	@$(DEPS)
	@$(MAKE) --no-print-directory $@-now

fuzz-now: modules tools selftests
	RDS_FUZZ_SECONDS=$$(($(FUZZ_MINUTES) * 60)) \
	RDS_TRINITY_OPS=$$(($(FUZZ_MINUTES) * 200 + 1000)) \
	RDS_TEST_TIMEOUT=$$(($(FUZZ_MINUTES) * 90 + 300)) \
		selftests/vm/run-guest.sh --kver $(KVER) \
		--timeout $$(($(FUZZ_MINUTES) * 240 + 1200)) --out $(BUILD)/vm/fuzz \
		-- selftests/run_tests.sh selftests/fuzz

# RDS/TCP traffic under connection resets for as long as asked, every
# message checked (selftests/soak/soak.sh); the last round may run up to
# 15 minutes past the time.
SOAK_MINUTES ?= 10
soak:
	@$(DEPS_ENV) $(DEPS)
	@$(MAKE) --no-print-directory $@-now

soak-now: modules tools selftests
	RDS_SOAK_SECONDS=$$(($(SOAK_MINUTES) * 60)) \
	RDS_TEST_TIMEOUT=$$(($(SOAK_MINUTES) * 60 + 1200)) \
		selftests/vm/run-guest.sh --kver $(KVER) \
		--timeout $$(($(SOAK_MINUTES) * 80 + 1800)) --out $(BUILD)/vm/soak \
		-- selftests/run_tests.sh selftests/soak/soak.sh

# What discovery found, after the same install step: selftests/build/ checks it.
kernel-info-now:
	@echo "KVER=$(KVER)"
	@echo "KDIR=$(KDIR)"

lint: kdir
	@KVER=$(KVER) KDIR=$(KDIR) selftests/vm/lint.sh

# Keeps build/lint/, the cache of the scripts unpacked from linux-source.
clean:
	@mkdir -p $(BUILD)
	find $(BUILD) -mindepth 1 -maxdepth 1 ! -name lint -exec rm -rf {} +
	@if [ -f tools/Makefile ]; then $(MAKE) -C tools clean; fi

distclean: clean
	rm -rf $(BUILD)
