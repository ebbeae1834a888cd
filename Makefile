# ndlua: build, test, install, sanitizers, benchmarks.
#   make            build ./ndlua (installs missing Debian packages first)
#   make test       C unit tests, busted specs, CLI transcripts; ends "N passed, N failed"
#   make run        the main job on a bundled example
#   make asan       the whole suite under AddressSanitizer + UBSan
#   make valgrind   the CLI transcripts and the bad-input corpus under valgrind
#   make fuzz       each fuzz target for FUZZ_SECONDS (libFuzzer, ASan + UBSan)
#   make bench      benchmarks (medians of several runs)
#   make validate   ndlua against published measured runs (spec/validation/): table, CSV, SVG
#   make install PREFIX=/usr/local

VERSION  := 0.1.0
PREFIX   ?= /usr/local
CC       ?= cc
# -O3: the search's pricing inlines its small per-stage helpers (about 5 %
# more candidates a second, make bench); no -ffast-math, so every number is
# the -O2 build's, bit for bit (the bench's CSVs compare equal).
OPT      ?= -O3
DEPS     := liblua5.4-dev lua5.4 libyaml-dev libcjson-dev lua-busted
TEST_DEPS := python3-torch
FUZZ_DEPS := clang libclang-rt-14-dev
VALGRIND_DEPS := valgrind

BUILD    ?= obj
BIN      ?= ndlua
WARN     := -Wall -Wextra -Werror
CPPFLAGS := -D_XOPEN_SOURCE=700 -DNDLUA_VERSION='"$(VERSION)"' -I/usr/include/lua5.4 -I/usr/include/cjson -Isrc
CFLAGS   := -std=c11 $(OPT) -g $(WARN) $(SAN)
LDLIBS   := -llua5.4 -lyaml -lcjson -ldl -lm -pthread

# src/ in folders by layer (src/README.md): program, binding, search, bridge, core.
SRC      := $(wildcard src/*/*.c)
HDR      := $(wildcard src/*/*.h)
# The Lua files of lua/, compiled into the binary (src/bridge/chunks.h); a
# file whose bytes differ from the ones built runs from its source.
LUA_FILES := $(sort $(shell find lua -name '*.lua'))
CHUNKS   := $(BUILD)/gen/lua_chunks.o
OBJ      := $(SRC:src/%.c=$(BUILD)/%.o) $(CHUNKS)
LIBOBJ   := $(filter-out $(BUILD)/program/main.o,$(OBJ))
CTESTS   := $(patsubst spec/c/%.c,$(BUILD)/spec/%,$(wildcard spec/c/test_*.c))

.PHONY: validate census-report all deps test-deps test test-only run asan valgrind fuzz fuzz-build bench install uninstall clean

all: $(BIN)

deps:
	@scripts/deps.sh $(DEPS)

test-deps:
	@scripts/deps.sh $(DEPS) $(TEST_DEPS)

$(BIN): $(OBJ)
	$(CC) $(CFLAGS) -o $@ $(OBJ) $(LDFLAGS) $(LDLIBS)

$(BUILD)/%.o: src/%.c $(HDR) | deps $(BUILD)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

# Compiled by the lua5.4 interpreter (DEPS), whose dump format the running
# liblua5.4 checks at start against a probe before it reads any chunk.
$(BUILD)/gen/lua_chunks.c: scripts/lua_chunks.lua scripts/dump_names.lua $(LUA_FILES) | deps $(BUILD)
	@mkdir -p $(dir $@)
	lua5.4 -E scripts/lua_chunks.lua $@ $(LUA_FILES)

$(CHUNKS): $(BUILD)/gen/lua_chunks.c src/bridge/chunks.h
	$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

$(BUILD)/spec/%: spec/c/%.c $(wildcard spec/c/*.h) $(LIBOBJ) | $(BUILD)
	$(CC) $(CPPFLAGS) -Ispec/c $(CFLAGS) -o $@ $< $(LIBOBJ) $(LDFLAGS) $(LDLIBS)

$(BUILD):
	@mkdir -p $(BUILD)/spec

test: test-deps $(BIN) $(CTESTS)
	@NDLUA=./$(BIN) CTEST_DIR=$(BUILD)/spec scripts/run-tests

# The strategies of the bundled Qwen3-30B-A3B recipe on 64 A3 devices;
# resolved.yaml goes to $(BUILD)/.
run: $(BIN)
	./$(BIN) search.lua examples/qwen3-30b-a3b-fsdp8/train.yaml -d 64 -b 128 -M 58GB -A A3 -o $(BUILD)

# The sanitizers' settings for the whole suite. LeakSanitizer needs no
# suppressions: a sanitizer build of ndlua closes its Lua state at exit (the
# others leave it reachable, src/program/main.c), busted exits through
# os.exit(code, true), and os.exit without close leaves the state reachable.
ASAN_ENV := ASAN_OPTIONS=detect_leaks=1:strict_string_checks=1:check_initialization_order=1 \
  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

asan:
	$(ASAN_ENV) $(MAKE) BUILD=obj-asan BIN=ndlua-asan OPT=-O1 \
	  SAN="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer" test

# The CLI transcripts and the bad-input corpus under valgrind: any error, or a
# leak definitely lost, exits 99, which no transcript expects. NDLUA_MALLOC=system
# gives the Lua state malloc's blocks one by one (src/program/state_heap.h), so
# valgrind sees each of them, not only the 64 KiB pieces the state carves.
VALGRIND_WRAPPER := valgrind --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite -q

valgrind: $(BIN)
	@scripts/deps.sh $(VALGRIND_DEPS)
	@NDLUA_MALLOC=system NDLUA=./$(BIN) NDLUA_WRAPPER="$(VALGRIND_WRAPPER)" SUITES="cli bad" scripts/run-tests

# Fuzzing with libFuzzer (clang, ASan + UBSan): each target of spec/fuzz/
# runs FUZZ_SECONDS on a working copy of its seed corpus (spec/fuzz/corpus/);
# what it finds lands in obj-fuzz/artifacts-TARGET/.
FUZZ_SECONDS ?= 60
FUZZ_TARGETS := yaml json estimate
FUZZ_SAN := -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer

fuzz:
	@scripts/deps.sh $(DEPS) $(FUZZ_DEPS)
	$(MAKE) BUILD=obj-fuzz CC=clang OPT=-O1 SAN="$(FUZZ_SAN)" fuzz-build
	@scripts/run-fuzz obj-fuzz $(FUZZ_SECONDS) $(FUZZ_TARGETS)

fuzz-build: $(FUZZ_TARGETS:%=$(BUILD)/fuzz/fuzz_%)

$(BUILD)/fuzz/fuzz_%: spec/fuzz/harness.c $(LIBOBJ) | $(BUILD)
	@mkdir -p $(BUILD)/fuzz
	$(CC) $(CPPFLAGS) $(CFLAGS) -fsanitize=fuzzer -DFUZZ_TARGET='"$*"' -DFUZZ_ROOT='"$(CURDIR)"' \
	  -o $@ $< $(LIBOBJ) $(LDFLAGS) $(LDLIBS)

# ndlua against published measured runs (spec/validation/, issue 12): the
# table on stdout, the rows as CSV and a chart of the errors in $(BUILD)/.
validate: $(BIN) | $(BUILD)
	./$(BIN) scripts/validate.lua --csv $(BUILD)/validation.csv --svg $(BUILD)/validation.svg

census-report: $(BIN) test-deps
	./$(BIN) scripts/census_report.lua

bench: $(BIN)
	@scripts/bench.sh ./$(BIN)

install: $(BIN)
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/ndlua
	install -m 755 $(BIN) $(DESTDIR)$(PREFIX)/bin/ndlua
	cd lua && find . -type d -exec install -d $(DESTDIR)$(PREFIX)/share/ndlua/{} \;
	cd lua && find . -type f -exec install -m 644 {} $(DESTDIR)$(PREFIX)/share/ndlua/{} \;
	install -d $(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/share/bash-completion/completions
	install -m 644 scripts/ndlua.1 $(DESTDIR)$(PREFIX)/share/man/man1/ndlua.1
	install -m 644 scripts/ndlua.bash-completion $(DESTDIR)$(PREFIX)/share/bash-completion/completions/ndlua

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/ndlua
	rm -rf $(DESTDIR)$(PREFIX)/share/ndlua
	rm -f $(DESTDIR)$(PREFIX)/share/man/man1/ndlua.1 $(DESTDIR)$(PREFIX)/share/bash-completion/completions/ndlua
	for d in man/man1 man bash-completion/completions bash-completion; do \
	  rmdir $(DESTDIR)$(PREFIX)/share/$$d 2>/dev/null || true; done

clean:
	rm -rf obj obj-asan obj-fuzz ndlua ndlua-asan
