# mcp_notes — top-level build.  The extension is built by PGXS in extension/,
# the gateway by its own Makefile in gateway/, the file daemon mcp-notes-fsd
# (file-backed workspaces) by its own in fsd/.

PG_CONFIG ?= pg_config
export PG_CONFIG

.PHONY: all extension gateway fsd jwks unit install check check-quick conformance run demo fuzz soak bench bench-quick clean compose-test

all: extension gateway fsd jwks

extension:
	$(MAKE) -C extension

gateway:
	$(MAKE) -C gateway

# the OAuth issuers' key fetcher (docs/operations.md, "OAuth")
jwks:
	$(MAKE) -C jwks
fsd:
	$(MAKE) -C fsd

# The unit tier: tests/unit's C executables for the gateway's pure modules,
# built and run (no cluster; make check runs them first, as suite unit).
unit:
	@tests/suites/unit

# Installs the extension into the PostgreSQL that pg_config names (needs
# write access there: run as root, or as the owner of that installation).
install: extension
	$(MAKE) -C extension install

# Every test, against a throw-away cluster; ends with "N passed, N failed".
# SUITES="regress e2e" runs only those suites, TESTS="..." (or TEST=) only
# those tests: see tests/suites/README.md.
check:
	@SUITES='$(SUITES)' TESTS='$(TESTS) $(TEST)' tests/run-checks

# The quick tier: unit, regress, e2e and hostile (tests/suites/README.md
# gives the time measured).
check-quick:
	@SUITES=quick TESTS='$(TESTS) $(TEST)' tests/run-checks

# docker/compose.yaml for real under rootful podman and under a dockerd the
# suite starts itself (tests/suites/compose; make check runs it too): build,
# passwords, client address, up with 2 gateways, flows, kill one, down.
# CONTAINER_ENGINE=podman or =docker runs one engine.
compose-test:
	@CONTAINER_ENGINE='$(CONTAINER_ENGINE)' tests/suites/compose

# The official MCP conformance suite (scripts/install-node) against a fresh
# cluster and gateway with share/conformance-fixture.sql: docs/conformance.md.
conformance: all
	@tests/with-cluster tests/suites/conformance

run:
	scripts/run-local

demo:
	scripts/demo

# Longer runs than make check: fuzzers for FUZZ_SECONDS each, race and fault
# loops with more repetitions, and the benchmark suite.
fuzz:
	$(MAKE) -C fuzz fuzz

soak:
	tests/run-soak

bench:
	$(MAKE) -C bench bench

bench-quick:
	$(MAKE) -C bench quick

clean:
	$(MAKE) -C extension clean
	-$(MAKE) -C gateway clean
	-$(MAKE) -C jwks clean
	-$(MAKE) -C fsd clean
	-$(MAKE) -C tests/unit clean
