# Switchyard: the commands a new user runs. Each installs the C libraries it needs when they are
# missing, then builds.

SWIFT ?= swift
APT_PACKAGES := libsrtp2-dev libopus-dev libvpx-dev pkg-config
CONFIG ?= Config/switchyard.json

.PHONY: run test bench fuzz deps build release clean

deps:
	@missing=""; \
	for package in $(APT_PACKAGES); do \
		dpkg-query -W -f='$${Status}' $$package 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$package"; \
	done; \
	if [ -n "$$missing" ]; then \
		echo "make: installing missing packages:$$missing"; \
		SUDO=""; [ "$$(id -u)" -eq 0 ] || SUDO=sudo; \
		$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing; \
	fi

build: deps
	$(SWIFT) build

test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build

run: deps
	$(SWIFT) build --product switchyard
	.build/debug/switchyard $(if $(wildcard $(CONFIG)),--config $(CONFIG),)

bench: deps
	cd Benchmarks && $(SWIFT) package --allow-writing-to-package-directory benchmark --skip-target ForwardingBenchmark
	cd Benchmarks && $(SWIFT) run -c release ForwardingBenchmark

fuzz: deps
	./Fuzz/run.sh

clean:
	rm -rf .build Benchmarks/.build Fuzz/.build
