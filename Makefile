# The two commands a new user needs (README): `make run` and `make test`.
# Both bootstrap missing packages, configure and build with the CMake preset PRESET (default).
PRESET ?= default
BUILD  := build/$(PRESET)
export PATH := $(PATH):/usr/local/cuda/bin

.PHONY: run test build configure bootstrap clean

run: build
	$(BUILD)/cli/tilecheck run

test: build
	ctest --preset $(PRESET)

build: configure
	cmake --build --preset $(PRESET)

configure: bootstrap
	@[ -f $(BUILD)/CMakeCache.txt ] || cmake --preset $(PRESET)

bootstrap:
	@scripts/bootstrap

clean:
	rm -rf build
