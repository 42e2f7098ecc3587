# The two set-up commands of the README, each self-sufficient on a fresh Debian 12 + Swift 6.3 machine:
#   make demo   — build and run the storage-engine demo (write, SIGKILL, reopen, compact)
#   make test   — build once and run every test target
# `make bench` runs the engine benchmark (release build) and writes bench-results/engine.json.

SWIFT ?= swift

.PHONY: demo test bench deps

# liblz4's headers (Debian: liblz4-dev) are the only system dependency. Install them as root, or say how.
deps:
	@if [ ! -f /usr/include/lz4.h ]; then \
		if [ "$$(id -u)" = 0 ]; then \
			echo "installing liblz4-dev"; \
			apt-get update -qq && apt-get install -y -qq liblz4-dev pkg-config >/dev/null; \
		else \
			echo "liblz4-dev is missing; run: sudo apt-get update && sudo apt-get install -y liblz4-dev"; \
			exit 1; \
		fi; \
	fi

demo: deps
	$(SWIFT) build --product cairn
	$$($(SWIFT) build --show-bin-path)/cairn demo

test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build

bench: deps
	mkdir -p bench-results
	$(SWIFT) run -c release cairn-bench engine --json bench-results/engine.json
