# Glovebox. `make run` runs the agent on a local desktop; `make test` runs every check and test.
SHELL := /bin/bash
export PATH := $(CURDIR)/bin:$(PATH)
VERSION ?= $(shell git describe --always --dirty 2>/dev/null || echo dev)

.PHONY: deps build run test proto bench clean test-guest test-vm bench-boot image image-boot

deps: ## Install missing Debian packages and the pinned Go tools into ./bin.
	scripts/install-deps.sh

build: ## Build glovebox-agent, glovebox-broker and the glovebox CLI into ./bin.
	go build -ldflags "-X main.version=$(VERSION)" -o bin/glovebox-agent ./guest/cmd/glovebox-agent
	go build -ldflags "-X main.version=$(VERSION)" -o bin/glovebox-broker ./host/cmd/glovebox-broker
	go build -ldflags "-X main.version=$(VERSION)" -o bin/glovebox ./host/cmd/glovebox

run: deps build ## Run agent + broker on this desktop ($$DISPLAY), or on a fresh Xvfb desktop when there is none.
	scripts/run-local.sh

test: deps ## Every check and test (set GLOVEBOX_REQUIRE_ALL=1 to fail instead of skip when a component is missing).
	scripts/test.sh

proto: deps ## Format the .proto files and regenerate the Go code.
	buf format -w
	buf generate

bench: deps ## Side-by-side benchmarks against the peer tools, with ratios.
	bench/run.sh

test-guest: ## Build the QEMU test guest (images/test-guest/build: vmlinux, initramfs, agent).
	images/test-guest/build.sh

test-vm: deps ## The QEMU stage alone: boot the test guest under TCG and drive it through the broker, with timings.
	@start=$$(date +%s); go test -count=1 -v -timeout 25m ./tests/vm; rc=$$?; \
	echo "QEMU stage wall time: $$(( $$(date +%s) - start )) s"; exit $$rc

bench-boot: ## Boot the test guest N times (default 5) under TCG: boot-to-ready, first screenshot, kernel-to-init, load.
	GLOVEBOX_BENCH_BOOT=$(or $(N),5) go test -count=1 -v -timeout 20m -run TestBootBench ./tests/vm

image: ## Build the desktop guest image (images/desktop/build/desktop.qcow2) from Debian bookworm; needs root.
	images/desktop/build.sh

image-boot: ## Boot the desktop image under TCG with virtio-serial and screenshot it through the broker (slow).
	GLOVEBOX_DESKTOP_IMAGE=$(CURDIR)/images/desktop/build go test -tags imageboot -count=1 -v -timeout 20m -run TestDesktopImage ./tests/vm

clean:
	rm -rf bin images/test-guest/build
