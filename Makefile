# displace - build, test and install.
#
#   make                 build bin/displace and its helpers (bin/fluid, bin/put)
#   make check           build and run every test
#   make run             the main job: calibrate, check the tcp send cost against
#                        a saturated CPU, then the send-cost sweep (results.csv,
#                        results.svg)
#   make install PREFIX=/usr/local DESTDIR=
#   make SANITIZE=address,undefined check    sanitized build in build/san/
#   make DEVELOPER=1     warnings are errors
#
# Missing Debian packages are installed by .ci/deps (as root) before the
# first build, or it prints the apt-get line to run.

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
	@./.ci/deps
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

.PHONY: all check run install uninstall clean distclean help unit e2e
all: $(PROGS)

$(BIN)/displace: $(OUT)/obj/coordinator/main.o $(COORD_OBJ) $(CALIB_OBJ) $(COMMON_OBJ) $(FLUIDARG_OBJ) $(PUT_OBJ) $(RPC_OBJ) $(KERNEL_OBJ)
	@mkdir -p $(@D)
	$(CC) -o $@ $^ $(LDFLAGS) $(PKG_LIBS)

# The fluid is one small, unsanitized program.
$(BIN)/fluid: $(call nosan,fluid/fluid.c $(FLUIDARG_SRC) $(COMMON_SRC)) $(KERNEL_OBJ)
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
# Unit and process tests (Check, fork mode), then the end-to-end CLI script.
check: $(PROGS) $(TESTBIN)
	DISPLACE_BIN=$(BIN) $(TESTBIN)
	DISPLACE_BIN=$(BIN) sh tests/cli.sh

unit: $(PROGS) $(TESTBIN)
	DISPLACE_BIN=$(BIN) $(TESTBIN)

e2e: $(PROGS)
	DISPLACE_BIN=$(BIN) sh tests/cli.sh

# --- fuzz-hello: the peer's hello, its udp path and its RPC parser -----------
# libFuzzer with clang (Debian: clang, libclang-rt-14-dev). Self-contained:
# each harness links only the files it fuzzes. New inputs go to
# build/fuzz/corpus-*; the committed seeds in fuzz/corpus/ are only read.
#   make fuzz-hello [FUZZ_HELLO_RUNS=N]     fuzz/fuzz_hello.c: net_hello_decode,
#                                           net_hello_check, udp_gate_datagram
#   make fuzz-rpc-wire [FUZZ_HELLO_RUNS=N]  fuzz/fuzz_rpc_wire.c: rpc_wire_feed
#   make fuzz-ctl-wire [FUZZ_HELLO_RUNS=N]  fuzz/fuzz_ctl_wire.c: the control exchange of
#                                           the peer's fluids (ctl_reader_feed, ctl_req_parse)
FUZZ_CC         ?= clang
FUZZ_HELLO_RUNS ?= 1100000
FUZZ_HELLO_CFLAGS := -std=gnu11 -g -O1 -D_GNU_SOURCE -I. -I$(OUT)/gen $(PKG_CFLAGS) $(WARN) \
                     -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
FUZZ_HELLO_SRC  := fuzz/fuzz_hello.c put/net.c put/udp_gate.c put/siphash.c common/cli.c
FUZZ_RPC_SRC    := fuzz/fuzz_rpc_wire.c put/rpc_wire.c
FUZZ_CTL_SRC    := fuzz/fuzz_ctl_wire.c put/ctl_wire.c common/cli.c

.PHONY: fuzz-hello fuzz-rpc-wire fuzz-ctl-wire
build/fuzz/fuzz_hello: $(FUZZ_HELLO_SRC) put/net.h put/udp_gate.h put/siphash.h common/cli.h $(CONFIG)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_HELLO_CFLAGS) -o $@ $(FUZZ_HELLO_SRC) -lm

build/fuzz/fuzz_rpc_wire: $(FUZZ_RPC_SRC) put/rpc_wire.h $(OUT)/gen/displace_rpc.h $(CONFIG)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_HELLO_CFLAGS) -o $@ $(FUZZ_RPC_SRC)

build/fuzz/fuzz_ctl_wire: $(FUZZ_CTL_SRC) put/ctl_wire.h common/cli.h $(CONFIG)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_HELLO_CFLAGS) -o $@ $(FUZZ_CTL_SRC) -lm

fuzz-hello: build/fuzz/fuzz_hello
	@mkdir -p build/fuzz/corpus-hello
	build/fuzz/fuzz_hello -runs=$(FUZZ_HELLO_RUNS) -print_final_stats=1 build/fuzz/corpus-hello fuzz/corpus/hello

fuzz-rpc-wire: build/fuzz/fuzz_rpc_wire
	@mkdir -p build/fuzz/corpus-rpc-wire
	build/fuzz/fuzz_rpc_wire -runs=$(FUZZ_HELLO_RUNS) -print_final_stats=1 build/fuzz/corpus-rpc-wire fuzz/corpus/rpc_wire
fuzz-ctl-wire: build/fuzz/fuzz_ctl_wire
	@mkdir -p build/fuzz/corpus-ctl-wire
	build/fuzz/fuzz_ctl_wire -runs=$(FUZZ_HELLO_RUNS) -print_final_stats=1 build/fuzz/corpus-ctl-wire fuzz/corpus/ctl_wire
# --- end of fuzz-hello ---------------------------------------------------------

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
install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/libexec/displace
	install -m 755 $(BIN)/displace $(DESTDIR)$(PREFIX)/bin/displace
	install -m 755 $(filter-out $(BIN)/displace,$(PROGS)) $(DESTDIR)$(PREFIX)/libexec/displace/

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/displace
	rm -rf $(DESTDIR)$(PREFIX)/libexec/displace

clean:
	rm -rf build bin

distclean: clean

help:
	@sed -n '2,12s/^# \{0,1\}//p' Makefile
