# The two set-up commands of the README, each self-sufficient on a fresh Debian 12 + Swift 6.3 machine:
#   make demo   — build and run the demo: the offline story against the Firestore emulator (offline only without
#                 it), a damaged cache, the Realtime Database against the built-in local server, then the storage
#                 engine (write, SIGKILL, reopen, compact)
#   make demo-tls — `cairn demo --tls`: TLS through an nginx proxy with a test CA, as production is configured
#   make test   — build once and run every test target (first creating .venv-interop, the official Python
#                 Firestore client and Admin SDK for the interop tests, when it is missing)
# `make bench` runs the engine benchmark (release build) and writes bench-results/engine.json.
# `make bench-1m` runs every query workload at 1M documents with every engine (release build; hours the first time,
# mostly loading): bench-results/query-1m.{txt,json,svg}. Loaded caches are kept in $(CAIRN_BENCH_CACHE) and reused.

SWIFT ?= swift

.PHONY: demo demo-tls test bench bench-1m deps interop-venv

# The fixture cache of `make bench-1m`: each engine's loaded 1M-document cache (~4 GB together), outside the
# repository. Clear it with `rm -rf` (Docs/Benchmarks.md, "1M documents").
CAIRN_BENCH_CACHE ?= $(HOME)/.cache/cairn-bench
# lru_gc_to_threshold's time cap per run at 1M (SQLite's collector needs hours there).
BENCH_1M_GC_CAP ?= 180

INTEROP_VENV ?= .venv-interop

# The system dependencies: liblz4's headers (Debian: liblz4-dev) for SegmentLog, and LevelDB's (libleveldb-dev)
# for cairn-bench's LevelDB baseline (Package.swift builds every product, so `swift build` needs both). Installed
# as root, or the missing ones are named with the command to run.
SYSTEM_PACKAGES = liblz4-dev:/usr/include/lz4.h libleveldb-dev:/usr/include/leveldb/c.h
# For the TLS tests and `cairn demo --tls` only (the tests skip without them, and fail under CI=true): nginx as the
# TLS-terminating gRPC proxy, openssl for the test CA. Installed as root when missing, with a policy-rc.d that keeps
# services from starting during the install (Debian's nginx package would start a server on port 80); without root
# the missing ones are named.
TLS_PACKAGES = nginx:/usr/sbin/nginx openssl:/usr/bin/openssl

deps:
	@missing=""; \
	for entry in $(SYSTEM_PACKAGES); do \
		if [ ! -f "$${entry#*:}" ]; then missing="$$missing $${entry%%:*}"; fi; \
	done; \
	if [ -n "$$missing" ]; then \
		if [ "$$(id -u)" = 0 ]; then \
			echo "installing$$missing"; \
			apt-get update -qq && apt-get install -y -qq $$missing pkg-config >/dev/null; \
		else \
			echo "missing:$$missing; run: sudo apt-get update && sudo apt-get install -y$$missing"; \
			exit 1; \
		fi; \
	fi
	@missing=""; \
	for entry in $(TLS_PACKAGES); do \
		if [ ! -x "$${entry#*:}" ]; then missing="$$missing $${entry%%:*}"; fi; \
	done; \
	if [ -n "$$missing" ]; then \
		if [ "$$(id -u)" = 0 ]; then \
			echo "installing$$missing (services kept from starting)"; \
			guard=""; \
			if [ ! -e /usr/sbin/policy-rc.d ]; then \
				printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d && chmod 755 /usr/sbin/policy-rc.d && guard=1; \
			fi; \
			apt-get update -qq && apt-get install -y -qq $$missing >/dev/null \
				|| echo "could not install$$missing: the TLS tests skip (and fail under CI=true)"; \
			if [ -n "$$guard" ]; then rm -f /usr/sbin/policy-rc.d; fi; \
		else \
			echo "optional, missing:$$missing (the TLS tests skip); run: sudo apt-get install -y$$missing"; \
		fi; \
	fi

demo: deps
	$(SWIFT) build --product cairn
	$$($(SWIFT) build --show-bin-path)/cairn demo

# The production-style connection: TLS through nginx with a test CA in front of the emulator (README: cairn demo --tls).
demo-tls: deps
	$(SWIFT) build --product cairn
	$$($(SWIFT) build --show-bin-path)/cairn demo --tls

# The official Python clients (from PyPI) for the interop tests: google-cloud-firestore with the Firestore emulator,
# firebase-admin (its Realtime Database module) with Cairn's local database server. A venv made before firebase-admin
# was added gets it too (the marker .ready-admin). Tolerant: when python3 -m venv or pip fails it says so in one
# line and those tests skip (under CI=true they fail).
interop-venv:
	@if [ ! -f $(INTEROP_VENV)/.ready ]; then \
		echo "creating $(INTEROP_VENV): python3 -m venv + pip install google-cloud-firestore firebase-admin (the Python interop peers)"; \
		rm -rf $(INTEROP_VENV); \
		if python3 -m venv $(INTEROP_VENV) >/dev/null 2>&1 \
			&& $(INTEROP_VENV)/bin/pip install -q --disable-pip-version-check google-cloud-firestore firebase-admin >/dev/null 2>&1; then \
			touch $(INTEROP_VENV)/.ready $(INTEROP_VENV)/.ready-admin; \
		else \
			rm -rf $(INTEROP_VENV); \
			echo "could not create $(INTEROP_VENV) (python3-venv missing, or PyPI unreachable): the Python interop tests skip (and fail under CI=true)"; \
		fi; \
	fi
	@if [ -f $(INTEROP_VENV)/.ready ] && [ ! -f $(INTEROP_VENV)/.ready-admin ]; then \
		echo "adding firebase-admin to $(INTEROP_VENV) (the Realtime Database interop peer)"; \
		if $(INTEROP_VENV)/bin/pip install -q --disable-pip-version-check firebase-admin >/dev/null 2>&1; then \
			touch $(INTEROP_VENV)/.ready-admin; \
		else \
			echo "could not install firebase-admin into $(INTEROP_VENV) (PyPI unreachable?): the Admin SDK interop tests skip (and fail under CI=true)"; \
		fi; \
	fi

test: deps interop-venv
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build

bench: deps
	mkdir -p bench-results
	$(SWIFT) run -c release cairn-bench engine --json bench-results/engine.json

bench-1m: deps
	mkdir -p bench-results
	$(SWIFT) build -c release --product cairn-bench
	$$($(SWIFT) build -c release --show-bin-path)/cairn-bench query --docs 1000000 --runs 3 \
		--fixture-cache $(CAIRN_BENCH_CACHE) --gc-cap-seconds $(BENCH_1M_GC_CAP) \
		--json bench-results/query-1m.json --svg bench-results/query-1m.svg > bench-results/query-1m.txt
	cat bench-results/query-1m.txt
