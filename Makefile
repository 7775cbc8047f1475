# displace - build, test and install.
#
#   make                 build bin/displace and its helpers (bin/fluid, bin/put)
#   make check           build and run every test
#   make run             the main job: calibrate, check the tcp send cost against
#                        a saturated CPU, then the send-cost sweep (results.csv,
#                        results.svg)
#   make install PREFIX=/usr/local DESTDIR=
#                        the programs, displace(1) and the bash completion
#   make deb             the Debian package, in build/deb/, checked by lintian
#   make SANITIZE=address,undefined check    sanitized build in build/san/
#   make DEVELOPER=1     warnings are errors
#   make fuzz            every libFuzzer harness in fuzz/, FUZZ_TIME s each
#   make fuzz-NAME       one of them (fuzz/fuzz_NAME.c)
#
# Missing Debian packages are installed by .ci/deps (as root) before the
# first build, or it prints the apt-get line to run; NO_DEPS=1 skips that
# (debian/rules: the package's Build-Depends are there already).

.DEFAULT_GOAL := all

PREFIX     ?= /usr/local
DESTDIR    ?=
CC         ?= cc
V          ?=

ifeq ($(SANITIZE),)
OUT := build/default
BIN := bin
else
OUT := build/san
BIN := build/san/bin
endif

WARN := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
        -Wformat=2 -Wvla -Wpointer-arith -Wundef
ifneq ($(DEVELOPER),)
WARN += -Werror
endif

HARDEN_CFLAGS  := -fstack-protector-strong -fPIE
HARDEN_LDFLAGS := -pie -Wl,-z,relro,-z,now
ifeq ($(SANITIZE),)
HARDEN_CFLAGS += -D_FORTIFY_SOURCE=2
SAN_FLAGS :=
else
SAN_FLAGS := -fsanitize=$(SANITIZE) -fno-omit-frame-pointer -fno-sanitize-recover=all
endif

BASE_CFLAGS := -std=gnu11 -O2 -g -pthread -D_GNU_SOURCE -I. -I$(OUT)/gen $(WARN) $(HARDEN_CFLAGS)

# Generated once per build directory: runs .ci/deps, then records the
# pkg-config flags. make restarts itself after remaking an included file.
CONFIG := $(OUT)/config.mk
NODEPS_GOALS := clean distclean help
ifeq ($(filter $(NODEPS_GOALS),$(MAKECMDGOALS)),)
-include $(CONFIG)
endif

$(CONFIG): .ci/deps
	@$(if $(NO_DEPS),:,./.ci/deps)
	@mkdir -p $(@D)
	@{ echo "PKG_CFLAGS := $$(pkg-config --cflags libuv jansson libtirpc)"; \
	   echo "PKG_LIBS := $$(pkg-config --libs libuv jansson libtirpc) -lcsv -lm"; \
	   echo "CHECK_CFLAGS := $$(pkg-config --cflags check)"; \
	   echo "CHECK_LIBS := $$(pkg-config --libs check)"; } > $@.tmp
	@mv $@.tmp $@

CFLAGS  := $(BASE_CFLAGS) $(PKG_CFLAGS) $(SAN_FLAGS) $(EXTRA_CFLAGS)
LDFLAGS := -pthread $(HARDEN_LDFLAGS) $(SAN_FLAGS) $(EXTRA_LDFLAGS)
# The fluid and the spin kernel are never sanitized or built at another
# optimisation level: their calibration must be the real loop.
NOSAN_CFLAGS := $(BASE_CFLAGS)

# --- sources ---------------------------------------------------------------
CALIB_SRC  := $(wildcard calib/*.c)
COORD_SRC  := $(filter-out coordinator/main.c,$(wildcard coordinator/*.c))
# common/: the parsers, clocks and pinning all three programs share
COMMON_SRC := $(wildcard common/*.c)
# the fluid's own argument parser, which the coordinator uses to build its argv
FLUIDARG_SRC := fluid/fluid_args.c
PUT_SRC    := $(filter-out put/put_main.c,$(wildcard put/*.c))
TEST_SRC   := $(wildcard tests/check_*.c) tests/testutil.c
KERNEL_SRC := fluid/spin.c

# The RPC interface: rpcgen writes the header, the XDR routines and the
# client stubs into $(OUT)/gen at build time (never committed). The server
# side parses calls itself (put/rpc_wire.c), so no _svc.c is generated.
RPC_X      := put/displace_rpc.x
RPC_GEN    := $(OUT)/gen/displace_rpc.h $(OUT)/gen/displace_rpc_xdr.c $(OUT)/gen/displace_rpc_clnt.c

obj = $(patsubst %.c,$(OUT)/obj/%.o,$(1))
nosan = $(patsubst %.c,$(OUT)/nosan/%.o,$(1))

CALIB_OBJ  := $(call obj,$(CALIB_SRC))
COORD_OBJ  := $(call obj,$(COORD_SRC))
COMMON_OBJ := $(call obj,$(COMMON_SRC))
FLUIDARG_OBJ := $(call obj,$(FLUIDARG_SRC))
PUT_OBJ    := $(call obj,$(PUT_SRC))
KERNEL_OBJ := $(call nosan,$(KERNEL_SRC))
TEST_OBJ   := $(call obj,$(TEST_SRC))
RPC_OBJ    := $(if $(wildcard $(RPC_X)),$(OUT)/obj/gen/displace_rpc_xdr.o \
              $(OUT)/obj/gen/displace_rpc_clnt.o,)

PROGS := $(BIN)/displace $(BIN)/fluid $(if $(PUT_SRC),$(BIN)/put,)
TESTBIN := $(OUT)/check_displace

.PHONY: all check run install uninstall clean distclean help unit e2e docs completion deb fuzz fuzz-build fuzz-names fuzz-rpc-wire fuzz-ctl-wire
all: $(PROGS)

$(BIN)/displace: $(OUT)/obj/coordinator/main.o $(COORD_OBJ) $(CALIB_OBJ) $(COMMON_OBJ) $(FLUIDARG_OBJ) $(PUT_OBJ) $(RPC_OBJ) $(KERNEL_OBJ)
	@mkdir -p $(@D)
	$(CC) -o $@ $^ $(LDFLAGS) $(PKG_LIBS)

# The fluid is one small, unsanitized program.
$(BIN)/fluid: $(call nosan,fluid/fluid.c $(FLUIDARG_SRC) $(COMMON_SRC) calib/procfs.c) $(KERNEL_OBJ)
	@mkdir -p $(@D)
	$(CC) -o $@ $^ -pthread $(HARDEN_LDFLAGS) -lm

# put never calls calib/: it measures and reports, the coordinator computes
$(BIN)/put: $(OUT)/obj/put/put_main.o $(PUT_OBJ) $(COMMON_OBJ) $(KERNEL_OBJ) $(RPC_OBJ)
	@mkdir -p $(@D)
	$(CC) -o $@ $^ $(LDFLAGS) $(PKG_LIBS)

$(TESTBIN): $(TEST_OBJ) $(COORD_OBJ) $(CALIB_OBJ) $(COMMON_OBJ) $(FLUIDARG_OBJ) $(PUT_OBJ) $(RPC_OBJ) $(KERNEL_OBJ)
	@mkdir -p $(@D)
	$(CC) -o $@ $^ $(LDFLAGS) $(CHECK_LIBS) $(PKG_LIBS)

$(OUT)/obj/tests/%.o: tests/%.c $(CONFIG)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(CHECK_CFLAGS) -MMD -MP -c -o $@ $<

$(OUT)/obj/gen/%.o: $(OUT)/gen/%.c $(CONFIG)
	@mkdir -p $(@D)
	$(CC) $(filter-out -Wmissing-prototypes -Wstrict-prototypes -Wshadow,$(CFLAGS)) \
	  -Wno-unused-parameter -Wno-unused-variable -MMD -MP -c -o $@ $<

$(OUT)/obj/%.o: %.c $(CONFIG) | $(if $(wildcard $(RPC_X)),$(RPC_GEN),)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -MMD -MP -c -o $@ $<

$(OUT)/nosan/%.o: %.c $(CONFIG)
	@mkdir -p $(@D)
	$(CC) $(NOSAN_CFLAGS) -MMD -MP -c -o $@ $<

# rpcgen output is built, never committed. rpcgen names the header to
# include after its input path, so it runs in put/ and includes
# "displace_rpc.h", found beside the generated .c; -M makes the client
# stubs reentrant (the result goes to a caller's variable, not a static).
$(OUT)/gen/displace_rpc.h: $(RPC_X)
	@mkdir -p $(@D)
	rm -f $@ && cd put && rpcgen -M -h -o $(CURDIR)/$@ displace_rpc.x || { rm -f $(CURDIR)/$@; exit 1; }
$(OUT)/gen/displace_rpc_xdr.c: $(RPC_X) $(OUT)/gen/displace_rpc.h
	rm -f $@ && cd put && rpcgen -M -c -o $(CURDIR)/$@ displace_rpc.x || { rm -f $(CURDIR)/$@; exit 1; }
$(OUT)/gen/displace_rpc_clnt.c: $(RPC_X) $(OUT)/gen/displace_rpc.h
	rm -f $@ && cd put && rpcgen -M -l -o $(CURDIR)/$@ displace_rpc.x || { rm -f $(CURDIR)/$@; exit 1; }

-include $(shell find build -name '*.d' 2>/dev/null)

# --- tests -----------------------------------------------------------------
# Unit and process tests (Check, fork mode), the end-to-end CLI script, the
# manual page (lint, and every option of every --help in it), the completion,
# and the bench scripts (their shared statistics' self-test, and each one's
# usage; nothing is measured).
check: $(PROGS) $(TESTBIN)
	DISPLACE_BIN=$(BIN) $(TESTBIN)
	DISPLACE_BIN=$(BIN) sh tests/cli.sh
	DISPLACE_BIN=$(BIN) sh tests/docs.sh
	DISPLACE_BIN=$(BIN) bash tests/completion.sh
	sh tests/bench.sh

unit: $(PROGS) $(TESTBIN)
	DISPLACE_BIN=$(BIN) $(TESTBIN)

e2e: $(PROGS)
	DISPLACE_BIN=$(BIN) sh tests/cli.sh

docs: $(PROGS)
	DISPLACE_BIN=$(BIN) sh tests/docs.sh

completion: $(PROGS)
	DISPLACE_BIN=$(BIN) bash tests/completion.sh

# --- fuzzing -----------------------------------------------------------------
# One libFuzzer harness per parser: fuzz/fuzz_NAME.c, its seeds in
# fuzz/corpus/NAME/. Adding one is that file and its name here. Built with
# clang (.ci/deps fuzz installs it) with ASan and UBSan; the library code
# comes from one archive, so a harness links only what it calls. New
# inputs found go to build/fuzz/corpus/NAME/, never into the committed seeds.
#   make fuzz-NAME [FUZZ_TIME=S | FUZZ_RUNS=N]   one harness, S seconds or N inputs
# store, ticks, reportline, cli: the files and command lines displace reads;
# hello (the peer's hello and udp path) and rpc_wire (its RPC parser, also
# make fuzz-rpc-wire): what a stranger sends the peer; ctl_wire (also make
# fuzz-ctl-wire): the control exchange of the peer's fluids.
# switchlog: the scheduler trace --trace-others reads (every task names itself).
FUZZ_NAMES := store ticks reportline cli hello rpc_wire ctl_wire switchlog
FUZZ_TIME  ?= 180
FUZZ_RUNS  ?=
FUZZ_CC    ?= clang
FUZZ_OUT   := build/fuzz
FUZZ_CFLAGS := -std=gnu11 -O1 -g -D_GNU_SOURCE -I. -I$(OUT)/gen $(PKG_CFLAGS) -fno-omit-frame-pointer \
               -fsanitize=address,undefined -fno-sanitize-recover=all
FUZZ_LIB_SRC := $(CALIB_SRC) $(COMMON_SRC) put/net.c put/udp_gate.c put/siphash.c put/rpc_wire.c put/ctl_wire.c
FUZZ_LIB   := $(FUZZ_OUT)/libfuzz.a
FUZZ_STAMP := $(FUZZ_OUT)/deps.stamp

$(FUZZ_STAMP): .ci/deps
	@./.ci/deps fuzz
	@mkdir -p $(@D)
	@touch $@

$(FUZZ_OUT)/obj/%.o: %.c $(FUZZ_STAMP) | $(if $(wildcard $(RPC_X)),$(RPC_GEN),)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -MMD -MP -c -o $@ $<

$(FUZZ_LIB): $(patsubst %.c,$(FUZZ_OUT)/obj/%.o,$(FUZZ_LIB_SRC))
	rm -f $@ && ar rcs $@ $^

$(FUZZ_OUT)/fuzz_%: fuzz/fuzz_%.c $(FUZZ_LIB) $(FUZZ_STAMP)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZ_LIB) -lcsv -lm

fuzz-build: $(addprefix $(FUZZ_OUT)/fuzz_,$(FUZZ_NAMES))

fuzz-names:
	@echo $(FUZZ_NAMES)

# fuzz-NAME: FUZZ_TIME seconds (or FUZZ_RUNS inputs) of one harness, from its committed seeds
fuzz-%: $(FUZZ_OUT)/fuzz_%
	@mkdir -p $(FUZZ_OUT)/corpus/$*
	$(FUZZ_OUT)/fuzz_$* $(if $(FUZZ_RUNS),-runs=$(FUZZ_RUNS),-max_total_time=$(FUZZ_TIME)) -timeout=10 \
	  -rss_limit_mb=2048 -print_final_stats=1 $(FUZZ_OUT)/corpus/$* fuzz/corpus/$*

fuzz-rpc-wire: fuzz-rpc_wire
fuzz-ctl-wire: fuzz-ctl_wire

# one after another: two at once would crowd a small host
fuzz: fuzz-build
	@for n in $(FUZZ_NAMES); do $(MAKE) --no-print-directory fuzz-$$n || exit 1; done

# --- the main job ------------------------------------------------------------
# calibrate; check that the cost of a blocking tcp send predicts 4 and 8
# blocking clients saturating the CPU (the verdict); then the send cost by
# size with the built-in peer: the table on stdout, results.csv (appended)
# and results.svg
run: $(PROGS)
	$(BIN)/displace calibrate
	$(BIN)/displace predict tcp --sizes 1000,8000 --clients 4,8 --compute 50 --reps 4
	$(BIN)/displace sweep tcp --sizes 1000:8000:1000 --csv results.csv --plot results.svg

# --- install -----------------------------------------------------------------
# displace finds its helpers in ../libexec/displace (coordinator/experiment.c)
MANDIR  := $(PREFIX)/share/man/man1
BASHDIR := $(PREFIX)/share/bash-completion/completions

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/libexec/displace \
	  $(DESTDIR)$(MANDIR) $(DESTDIR)$(BASHDIR)
	install -m 755 $(BIN)/displace $(DESTDIR)$(PREFIX)/bin/displace
	install -m 755 $(filter-out $(BIN)/displace,$(PROGS)) $(DESTDIR)$(PREFIX)/libexec/displace/
	install -m 644 docs/displace.1 $(DESTDIR)$(MANDIR)/displace.1
	install -m 644 completion/displace.bash $(DESTDIR)$(BASHDIR)/displace

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/displace $(DESTDIR)$(MANDIR)/displace.1 $(DESTDIR)$(BASHDIR)/displace
	rm -rf $(DESTDIR)$(PREFIX)/libexec/displace

# --- the Debian package ------------------------------------------------------
# dpkg-buildpackage (debian/rules builds in build/pkg/, so bin/ is left
# alone) writes to the parent directory; the results move to build/deb/,
# and lintian checks them. DEB_BUILD_OPTIONS=nocheck skips make check.
VERSION := $(shell sed -n 's/^\#define DISPLACE_VERSION "\(.*\)"/\1/p' coordinator/displace.h)
DEB_FILES = ../displace_$(VERSION)_*.deb ../displace-dbgsym_$(VERSION)_*.deb \
	    ../displace_$(VERSION)_*.buildinfo ../displace_$(VERSION)_*.changes

deb:
	./.ci/deps deb
	dpkg-buildpackage -us -uc -b
	rm -rf build/deb && mkdir -p build/deb
	mv $(DEB_FILES) build/deb/
	lintian --fail-on error --info build/deb/displace_$(VERSION)_*.changes
	@ls build/deb/*.deb

clean:
	rm -rf build bin

distclean: clean

help:
	@sed -n '2,16s/^# \{0,1\}//p' Makefile
