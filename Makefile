# Switchyard: the commands a new user runs. Each installs the C libraries it needs when they are
# missing, then builds.

SWIFT ?= swift
# `make bench` pipes the forwarding benchmark through tee; a failed run must fail the target.
SHELL := /bin/bash
.SHELLFLAGS := -o pipefail -c
APT_PACKAGES := libsrtp2-dev libopus-dev libvpx-dev libavformat-dev libavcodec-dev libavutil-dev libswscale-dev pkg-config libssl-dev dpkg-dev
CONFIG ?= Config/switchyard.json

# Which libsrtp2 to link (docs/srtp-build.md):
#   SRTP=openssl (default)  libsrtp2 2.5.0 from Debian's source package, built against OpenSSL by
#                           scripts/build-libsrtp.sh into .build-srtp/ and linked statically.
#   SRTP=system             the distribution's shared libsrtp2 (Debian's uses NSS and is 1.5-2x slower);
#                           its builds go to .build-system/ so the two never mix.
SRTP ?= openssl
SRTP_PKGCONFIG := $(CURDIR)/.build-srtp/prefix/lib/pkgconfig
ifeq ($(SRTP),openssl)
export PKG_CONFIG_PATH := $(SRTP_PKGCONFIG)
SCRATCH :=
else ifeq ($(SRTP),system)
SCRATCH := --scratch-path .build-system
else
$(error SRTP must be openssl or system, not "$(SRTP)")
endif
INTEROP := .build-srtp/interop

.PHONY: run test bench fuzz deps srtp interop-peers build release clean

# Installs those of the Debian packages $(1) that are missing, saying which (with sudo unless root).
define install-missing
	@missing=""; \
	for package in $(1); do \
		dpkg-query -W -f='$${Status}' $$package 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$package"; \
	done; \
	if [ -n "$$missing" ]; then \
		echo "make: installing missing packages:$$missing"; \
		SUDO=""; [ "$$(id -u)" -eq 0 ] || SUDO=sudo; \
		$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing; \
	fi
endef

deps:
	$(call install-missing,$(APT_PACKAGES))

# The OpenSSL build of libsrtp2; a no-op once built.
srtp: deps
	scripts/build-libsrtp.sh

# The other implementations the interop tests talk to: the C SRTP peer against each libsrtp2 build,
# pylibsrtp, aiortc and Selenium from PyPI, Debian's headless Chromium with its driver, and Debian's
# GStreamer webrtcbin.
BROWSER_PACKAGES := chromium chromium-driver
# GStreamer's webrtcbin with the elements and bindings the WHIP/WHEP interop test uses (Debian's python3).
GSTREAMER_PACKAGES := gstreamer1.0-plugins-bad gstreamer1.0-plugins-good gstreamer1.0-plugins-base gstreamer1.0-nice \
	gstreamer1.0-plugins-ugly gstreamer1.0-libav \
	python3-gst-1.0 gir1.2-gst-plugins-bad-1.0 gir1.2-gst-plugins-base-1.0 gir1.2-gstreamer-1.0
PYTHON_PACKAGES := pylibsrtp==1.0.0 aiortc==1.16.0 websockets==17.4 selenium==4.51.0
# The cluster tests start private PostgreSQL servers from Debian's package (docs/cluster.md).
CLUSTER_PACKAGES := postgresql
# The blocked-network tests put a client in a network namespace whose nftables rules drop UDP.
NETWORK_PACKAGES := iproute2 nftables
# The TURN tests start private coturn servers from Debian's package, never its system service
# (docs/turn.md); the one with TURN over TLS makes its self-signed certificate with openssl.
TURN_PACKAGES := coturn openssl
# The archiving tests check what the daemon wrote with ffprobe and decode it whole with ffmpeg.
ARCHIVE_TEST_PACKAGES := ffmpeg
interop-peers: srtp
	@mkdir -p $(INTEROP)
	cc -O2 -o $(INTEROP)/srtp_peer_system Tests/Interop/srtp_peer.c $$(PKG_CONFIG_PATH= pkg-config --cflags --libs libsrtp2)
	cc -O2 -o $(INTEROP)/srtp_peer_openssl Tests/Interop/srtp_peer.c $$(PKG_CONFIG_PATH=$(SRTP_PKGCONFIG) pkg-config --cflags --libs libsrtp2)
	@python3 -c "import pylibsrtp, aiortc, websockets, selenium" 2>/dev/null || python3 -m pip install -q $(PYTHON_PACKAGES) \
		|| python3 -m pip install -q --break-system-packages $(PYTHON_PACKAGES)
	$(call install-missing,$(BROWSER_PACKAGES) $(GSTREAMER_PACKAGES) $(CLUSTER_PACKAGES) $(NETWORK_PACKAGES))
	$(call install-missing,$(TURN_PACKAGES))
	$(call install-missing,$(ARCHIVE_TEST_PACKAGES))

build: srtp
	$(SWIFT) build $(SCRATCH)

# Release binaries of the daemon and the bench, linked against the libsrtp2 build SRTP chose (plain
# `swift build -c release` finds only the distribution's library, which is 1.5-3x slower). SwiftPM
# does not rebuild when only PKG_CONFIG_PATH changed, so a release folder an earlier plain build left
# on the distribution's library is rebuilt from scratch.
release: srtp
	@bin="$$($(SWIFT) build -c release $(SCRATCH) --show-bin-path)"; \
	if [ "$(SRTP)" = openssl ] && [ -x "$$bin/switchyard" ] && ldd "$$bin/switchyard" | grep -q 'libsrtp2\.so'; then \
		echo "make: $$bin was built against the distribution's libsrtp2; rebuilding it against the OpenSSL build"; \
		rm -rf "$$bin"; \
	fi
	$(SWIFT) build -c release $(SCRATCH) --product switchyard
	$(SWIFT) build -c release $(SCRATCH) --product switchyard-bench

# Every suite with a timed assertion, and every suite that loads the machine, runs in an invocation
# of its own after the parallel suite: swift test runs the suites of one invocation side by side, and
# a timed assertion must never share the two cores with the bench's daemons, Chromium or aiortc.
#   AudioFallbackTests   timed end-to-end runs of the audio-fallback policy
#   BenchProcessTests    switchyard-bench with its own daemons; timed fallback scenarios
#   WebRTCInteropTests   Chromium and aiortc
#   ClusterTests         PostgreSQL and daemons whose liveness is one-second heartbeats
#   ChurnTests           150 connections a run, whose WebSocket handshakes must finish within the
#                        3 s header timeout that closes the idle ones (on one core beside the
#                        parallel suite a handshake missed it)
#   ArchiveTests         archives whose durations are checked against the time they recorded, and
#                        ffmpeg decoding them whole
#   ChaosTests           two minutes of switchyard-bench chaos (scripts/bench-chaos.sh): PostgreSQL and
#                        three nodes killed, drained, stopped; last, as it loads the machine throughout
SOLO_TESTS := \.AudioFallbackTests BenchProcessTests WebRTCInteropTests ClusterTests ChurnTests ArchiveTests ChaosTests
empty :=
space := $(empty) $(empty)
test: interop-peers
	$(SWIFT) build $(SCRATCH) --build-tests
	$(SWIFT) test $(SCRATCH) --skip-build --skip "$(subst $(space),|,$(SOLO_TESTS))"
	$(foreach suite,$(SOLO_TESTS),$(SWIFT) test $(SCRATCH) --skip-build --filter "$(suite)" &&) true

run: srtp
	$(SWIFT) run $(SCRATCH) switchyard $(if $(wildcard $(CONFIG)),--config $(CONFIG),)

# The switchyard-bench suite against release daemons (docs/benchmark.md), then the wire and SRTP
# micro-benchmarks with the chosen build, then forwarding with both libsrtp2 builds (each beside the
# minimal C forwarder linked against the same build), summed up side by side.
BENCH_RESULTS ?= bench-results
C_REFERENCE := .build-srtp/c-reference
bench: release interop-peers
	scripts/bench-suite.sh "$$($(SWIFT) build -c release $(SCRATCH) --show-bin-path)" $(BENCH_RESULTS)
	cd Benchmarks && $(SWIFT) package $(SCRATCH) --allow-writing-to-package-directory benchmark --skip-target ForwardingBenchmark
	@mkdir -p $(BENCH_RESULTS) $(C_REFERENCE)
	cc -O2 -o $(C_REFERENCE)/openssl Benchmarks/Benchmarks/CReferenceForwarder/main.c $$(PKG_CONFIG_PATH=$(SRTP_PKGCONFIG) pkg-config --cflags --libs libsrtp2) -lpthread
	cc -O2 -o $(C_REFERENCE)/system Benchmarks/Benchmarks/CReferenceForwarder/main.c $$(PKG_CONFIG_PATH= pkg-config --cflags --libs libsrtp2) -lpthread
	cd Benchmarks && PKG_CONFIG_PATH=$(SRTP_PKGCONFIG) $(SWIFT) run -c release --scratch-path .build-openssl ForwardingBenchmark \
		--c-reference $(CURDIR)/$(C_REFERENCE)/openssl | tee $(CURDIR)/$(BENCH_RESULTS)/forwarding-openssl.txt
	cd Benchmarks && PKG_CONFIG_PATH= $(SWIFT) run -c release --scratch-path .build-system ForwardingBenchmark --skip-memory \
		--c-reference $(CURDIR)/$(C_REFERENCE)/system | tee $(CURDIR)/$(BENCH_RESULTS)/forwarding-system.txt
	scripts/forwarding-summary.sh $(BENCH_RESULTS)/forwarding-openssl.txt $(BENCH_RESULTS)/forwarding-system.txt

fuzz: srtp
	./Fuzz/run.sh

clean:
	rm -rf .build .build-system .build-srtp Benchmarks/.build Benchmarks/.build-openssl Benchmarks/.build-system Fuzz/.build
