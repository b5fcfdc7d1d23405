# imagepipe — the two commands of the README, and the steps they are made of.
#
#   make          build (release) and install every plugin into plugins.d/
#   make run      bootstrap, build, list the coders and render the sample inputs into out/
#   make test     bootstrap, build and run every test
#   make bench    run the side-by-side benchmarks (Benchmarks/)
#   make install  install into PREFIX (default /usr/local; DESTDIR stages), make uninstall removes it again
#   make deb      build the Debian package (build/deb/); make deb-test installs it here, checks it, purges it

SWIFT ?= swift
CONFIG := release
BIN := .build/$(CONFIG)
PLUGIN_DIR := $(CURDIR)/plugins.d
# Plugins join this list when they work; placeholders are built but not installed.
# Every plugin SwiftPM builds declares its needs in its own folder (Plugins/<Name>/plugin.conf) and joins by being there.
SWIFT_PLUGINS := $(patsubst Plugins/%/plugin.conf,%,$(wildcard Plugins/*/plugin.conf))
IMAGEPIPE := $(BIN)/imagepipe

.PHONY: all bootstrap build plugins run test fuzz bench clean install uninstall deb deb-test

all: build

bootstrap:
	@scripts/bootstrap

# SwiftPM caches the evaluated Package.swift, keyed by its text and the environment, not by the files it reads: a
# digest of the plugin.conf files in the environment of every swift command makes a plugin folder added, removed
# or changed re-evaluate it (Plugins/README.md).
export IMAGEPIPE_PLUGIN_CONFS := $(shell for f in Plugins/*/plugin.conf; do echo "$$f"; cat "$$f"; done 2>/dev/null | sha1sum | cut -c1-16)

# One `swift build` builds the CLI and every plugin product; then the .so files are installed.
build: bootstrap
	$(SWIFT) build -c $(CONFIG)
	@$(MAKE) --no-print-directory plugins

plugins:
	@mkdir -p $(PLUGIN_DIR)
	@chmod 0755 $(PLUGIN_DIR)
	@for p in $(SWIFT_PLUGINS); do install -m 0755 $(BIN)/lib$$p.so $(PLUGIN_DIR)/lib$$p.so; done
	@$(MAKE) --no-print-directory -C Plugins/TemplateCoder OUT=$(PLUGIN_DIR)
	@echo "plugins installed in plugins.d/: $$(cd $(PLUGIN_DIR) && ls *.so | tr '\n' ' ')"

run: build
	$(IMAGEPIPE) coders
	@scripts/render-samples $(IMAGEPIPE) samples out

# The plugin tester, the C template's checks and a bounded fuzz run (FUZZ_CASES cases of a fixed seed, at most
# FUZZ_SECONDS) come first, so that swift test's summary is the closing line. `make fuzz` is the long run.
# Each step runs under scripts/no-leftovers, which fails the step when a process it started (a redis-server, a
# `serve`, an origin server, a worker) is still alive after it.
FUZZ_CASES ?= 3000
FUZZ_SECONDS ?= 60
NO_LEFTOVERS := scripts/no-leftovers
test: build
	$(NO_LEFTOVERS) $(MAKE) --no-print-directory -C Plugins/TemplateCoder check
	$(NO_LEFTOVERS) scripts/test-plugins $(IMAGEPIPE) $(PLUGIN_DIR)
	$(NO_LEFTOVERS) scripts/fuzz --cases $(FUZZ_CASES) --seconds $(FUZZ_SECONDS) --seed 1 --quiet --imagepipe $(IMAGEPIPE)
	IMAGEPIPE_REQUIRE_BOOTSTRAPPED=1 $(NO_LEFTOVERS) $(SWIFT) test -c $(CONFIG)

fuzz: build
	@scripts/bootstrap --fuzz
	scripts/fuzz --minutes 10 --imagepipe $(IMAGEPIPE)
	scripts/fuzz-c --seconds 120

bench: build
	@scripts/bootstrap --bench
	@$(NO_LEFTOVERS) Benchmarks/run
	@$(NO_LEFTOVERS) Benchmarks/batch
	@$(NO_LEFTOVERS) Benchmarks/color
	@$(NO_LEFTOVERS) Benchmarks/serve
	@$(NO_LEFTOVERS) Benchmarks/scale-out
	@$(NO_LEFTOVERS) Benchmarks/shards

PREFIX ?= /usr/local
LIBDIR ?= $(PREFIX)/lib
DESTDIR ?=
install: build
	scripts/install --prefix "$(PREFIX)" --libdir "$(LIBDIR)" --destdir "$(DESTDIR)"

uninstall:
	scripts/install --uninstall --prefix "$(PREFIX)" --libdir "$(LIBDIR)" --destdir "$(DESTDIR)"

deb: build
	scripts/make-deb

# Installs the package on this machine (root), checks it as an operator would and purges it, even on failure.
# It packages the tree as last built (by make test in CI: a second `swift build` there would only switch the
# build out of test mode, two minutes for the same code); it builds only when nothing is built yet.
deb-test: bootstrap
	@[ -x $(IMAGEPIPE) ] && ls $(PLUGIN_DIR)/*.so >/dev/null 2>&1 || $(MAKE) --no-print-directory build
	$(NO_LEFTOVERS) scripts/test-deb

clean:
	rm -rf out build $(PLUGIN_DIR)/*.so Plugins/TemplateCoder/build
