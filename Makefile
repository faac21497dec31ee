# vecbsp: top-level entry points. CMake does the building; this file only
# makes sure the dependencies are present and names the jobs.
BUILD   ?= build
JOBS    ?= 2
CMAKE_FLAGS ?= -DCMAKE_BUILD_TYPE=RelWithDebInfo

.PHONY: all deps build check demo asan fuzz figures validate validate-hybrid install clean

all: build

deps:
	@scripts/setup-deps.sh

$(BUILD)/CMakeCache.txt: | deps
	@cmake -S . -B $(BUILD) $(CMAKE_FLAGS) >/dev/null

build: deps $(BUILD)/CMakeCache.txt
	@cmake --build $(BUILD) -j $(JOBS) -- --no-print-directory

# Every test; ctest's closing line counts them.
check: build
	@ctest --test-dir $(BUILD) -j $(JOBS) --output-on-failure

# The test suite under AddressSanitizer and UndefinedBehaviorSanitizer
# (generated programs too, compiled with -O0: the sanitizers' own setting).
asan: deps
	@cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DVECBSP_SANITIZE=ON >/dev/null
	@cmake --build build-asan -j $(JOBS) -- --no-print-directory
	@VECBSP_CC_OPT=-O0 ctest --test-dir build-asan -j $(JOBS) --output-on-failure

# The parser fuzz target (libFuzzer), FUZZ_SECONDS long.
FUZZ_SECONDS ?= 60
fuzz:
	@VECBSP_FUZZ=1 scripts/setup-deps.sh
	@scripts/fuzz.sh $(FUZZ_SECONDS)

# The papers' predicted figures (docs/figures/), on the paper's machine.
figures: build
	@scripts/paper-figures.sh $(BUILD)

# Predicted against measured on this machine, out of sample (docs/validation.md).
validate: build
	@scripts/validate.py $(BUILD)

# The hybrid backend (2 MPI ranks of 1 thread, planned for the levels that
# probe --levels measures) beside flat MPI at p = 2, reusing validate's probes.
validate-hybrid: build
	@scripts/validate.py $(BUILD) --configs mpi:2,hybrid:2x1 --reuse-probes --out docs/validation-hybrid.md

demo: build
	@scripts/demo.sh $(BUILD)

# vecbsp, bspcc, bsprun, bspprobe, bsp.h, the runtime libraries and their
# pkg-config files under PREFIX (the tree finds itself: it may be moved).
PREFIX ?= /usr/local
install: build
	@cmake --install $(BUILD) --prefix $(PREFIX)

clean:
	rm -rf $(BUILD) build-asan build-fuzz
