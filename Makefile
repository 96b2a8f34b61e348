# SPDX-License-Identifier: GPL-2.0
#
# Out-of-tree build of the RDS modules, the tools and the selftests.
#
#   make                 build the modules for the default kernel (KDIR below)
#   make KVER=X          build the modules for kernel X (KDIR=/lib/modules/X/build)
#   make tools selftests build the user space programs into build/bin/
#   make check [KVER=X]  build everything, run the selftests in QEMU guests, print TAP
#   make run [KVER=X]    build everything and run selftests/demo.sh in a guest
#   make lint            checkpatch --strict, sparse (C=2) and a W=1 build; fails on findings
#   make install         modules_install into /lib/modules/KVER/updates, then depmod
#                        (modprobe then prefers ours to the in-tree rds: the selftests
#                        never need it)
#
# Each kernel gets its own build tree, build/<KVER>/: the sources are copied there
# (rsync keeps timestamps, so rebuilds stay incremental) and the .ko files end up flat
# in build/<KVER>/modules/, which is where the selftests look for them.

ifdef KVER
KDIR ?= /lib/modules/$(KVER)/build
else
# The running kernel's headers, else (in a container) the newest Debian amd64 headers.
KDIR ?= $(or $(wildcard /lib/modules/$(shell uname -r)/build), \
	     $(shell ls -d /usr/src/linux-headers-*-amd64 2>/dev/null | sort -V | tail -n 1))
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

export KVER KDIR

.PHONY: all modules clean distclean install tools selftests run check lint kdir

all: modules

kdir:
	@test -n "$(KVER)" -a -d "$(KDIR)" || { \
		echo "No kernel headers: KDIR='$(KDIR)' KVER='$(KVER)'." >&2; \
		echo "Install linux-headers-amd64, or pass KVER= or KDIR=." >&2; exit 1; }

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

tools:
	@if [ -f tools/Makefile ]; then $(MAKE) -C tools; else echo "tools: no tools/Makefile yet"; fi

selftests:
	$(MAKE) -C selftests

run: modules tools selftests
	selftests/vm/run-guest.sh --kver $(KVER) -- selftests/demo.sh

# Installs missing packages first (on a fresh machine), then builds in a new make so
# that KDIR is found after the headers are installed.
check:
	@selftests/vm/install-deps.sh
	@mkdir -p $(BUILD)
	@$(MAKE) --no-print-directory modules tools selftests >$(BUILD)/check-build.log 2>&1 || \
		{ tail -n 50 $(BUILD)/check-build.log; echo "build failed (see build/check-build.log)"; \
		  echo "0 passed, 1 failed"; exit 1; }
	@selftests/vm/check.sh --kver $(KVER)

lint: kdir
	@selftests/vm/lint.sh

# Keeps build/lint/, the cache of the scripts unpacked from linux-source.
clean:
	@mkdir -p $(BUILD)
	find $(BUILD) -mindepth 1 -maxdepth 1 ! -name lint -exec rm -rf {} +
	@if [ -f tools/Makefile ]; then $(MAKE) -C tools clean; fi

distclean: clean
	rm -rf $(BUILD)
