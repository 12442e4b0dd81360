# The two commands a new user needs (README): `make run` and `make test`.
# Both bootstrap missing packages, configure and build with the CMake preset PRESET (default);
# `make test` also builds the Python venv its notebook, h5py and Python-package tests use.
PRESET ?= default
BUILD  := build/$(PRESET)
export PATH := $(PATH):/usr/local/cuda/bin

PREFIX ?= $(HOME)/.local

.PHONY: run test build configure bootstrap venv clean install python python-check fuzz

run: configure  # only what the main job needs: the CLI and our kernel's library (make test builds the rest)
	cmake --build --preset $(PRESET) --target tilecheck tc_kernel_upstream
	$(BUILD)/cli/tilecheck run

test: venv build  # the venv first: the build finds nanobind there and builds the Python package
	ctest --preset $(PRESET)

build: configure
	cmake --build --preset $(PRESET)

configure: bootstrap
	@[ -f $(BUILD)/CMakeCache.txt ] || cmake --preset $(PRESET)

bootstrap:  # packages: enough to build and run
	@scripts/bootstrap --no-venv

venv:  # the Python venv the tests use (notebooks, h5py checks)
	@scripts/bootstrap

python: venv  # the Python package into .venv: pip install . with the venv's pinned build tools (docs/python.md)
	.venv/bin/pip install -q --disable-pip-version-check --no-build-isolation --no-deps .

FUZZ_SECONDS ?= 600
fuzz: build  # each fuzz harness for FUZZ_SECONDS (default 10 minutes; make test gives each 10 s)
	@for h in $(BUILD)/tests/fuzz/clang/fuzz_*; do \
	  [ -x "$$h" ] || { echo "make fuzz: no harnesses in $(BUILD)/tests/fuzz/clang (configure says why)"; exit 1; }; \
	  echo "== $$(basename $$h), $(FUZZ_SECONDS) s"; \
	  tests/fuzz/run_fuzzer.sh "$$h" "$(BUILD)/tests/fuzz/long/$$(basename $$h)" $(FUZZ_SECONDS) || exit 1; \
	done

python-check:  # pip install . from a clean clone into a fresh venv, then use it (slow: not in make test)
	tests/python/pip_install_check.sh

install: build  # tilecheck, its kernels, fixtures and CMake package under PREFIX (docs/install.md)
	cmake --install $(BUILD) --prefix $(PREFIX)

clean:
	rm -rf build
