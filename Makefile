# The two commands a new user needs (README): `make run` and `make test`.
# Both bootstrap missing packages, configure and build with the CMake preset PRESET (default);
# `make test` also builds the Python venv its notebook and h5py tests use.
PRESET ?= default
BUILD  := build/$(PRESET)
export PATH := $(PATH):/usr/local/cuda/bin

PREFIX ?= $(HOME)/.local

.PHONY: run test build configure bootstrap venv clean install

run: build
	$(BUILD)/cli/tilecheck run

test: build venv
	ctest --preset $(PRESET)

build: configure
	cmake --build --preset $(PRESET)

configure: bootstrap
	@[ -f $(BUILD)/CMakeCache.txt ] || cmake --preset $(PRESET)

bootstrap:  # packages: enough to build and run
	@scripts/bootstrap --no-venv

venv:  # the Python venv the tests use (notebooks, h5py checks)
	@scripts/bootstrap

install: build  # tilecheck, its kernels, fixtures and CMake package under PREFIX (docs/install.md)
	cmake --install $(BUILD) --prefix $(PREFIX)

clean:
	rm -rf build
