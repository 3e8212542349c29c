# Two commands for a newcomer:
#   make test   build everything, run the test suite (normal build, then the
#               ASan+UBSan build of the pure-C parts), then a summary of what
#               ran (cmocka cases, skipped groups: scripts/test_summary.sh)
#   make demo   build, then run the main job (profile the histogram example on
#               a GPU; without one, apply the model to counters recorded on one)
# Both first check the Debian packages they need (scripts/deps.sh): installed
# with apt-get as root, else one line with the command; GPUQ_DEPS=skip skips.
# Other targets: build, build-asan, test-unit, test-gpu, fuzz, figures, validate, clean.
#   make fuzz       each libFuzzer harness for FUZZ_SECONDS (30) under ASan+UBSan (clang)
#   make validate   (GPU) the validation suite: times, counters, every model
#                   variant, and the comparison in $(BUILD)/validation-run/

BUILD      ?= build
ASAN_BUILD ?= build-asan
JOBS       ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE      ?= cmake
CTEST      ?= ctest
CMAKE_ARGS ?=

FUZZ_SECONDS ?= 30
JUNIT_ARGS  = --test-output-size-passed 1000000 --output-junit

.PHONY: all build build-asan test test-normal test-asan test-unit test-gpu demo figures validate clean deps deps-demo fuzz

all: build

$(BUILD)/CMakeCache.txt:
	$(CMAKE) -S . -B $(BUILD) $(CMAKE_ARGS)

# cmake_refresh.sh: reconfigure when cmocka was missing at configure time and
# is there now (make demo, then make test), or when CMAKE_ARGS change.
build: $(BUILD)/CMakeCache.txt
	@sh scripts/cmake_refresh.sh $(BUILD) $(CMAKE) $(CMAKE_ARGS)
	$(CMAKE) --build $(BUILD) -j $(JOBS)

$(ASAN_BUILD)/CMakeCache.txt:
	$(CMAKE) -S . -B $(ASAN_BUILD) -DGPUQ_SANITIZE=ON -DGPUQ_WITH_CUDA=OFF -DCMAKE_BUILD_TYPE=Debug $(CMAKE_ARGS)

build-asan: $(ASAN_BUILD)/CMakeCache.txt
	@sh scripts/cmake_refresh.sh $(ASAN_BUILD) $(CMAKE) $(CMAKE_ARGS)
	$(CMAKE) --build $(ASAN_BUILD) -j $(JOBS)

deps:
	@sh scripts/deps.sh test

deps-demo:
	@sh scripts/deps.sh demo

test-normal: build
	$(CTEST) --test-dir $(BUILD) --output-on-failure -j $(JOBS) $(JUNIT_ARGS) $(abspath $(BUILD))/ctest-junit.xml

test-asan: build-asan
	$(CTEST) --test-dir $(ASAN_BUILD) --output-on-failure -j $(JOBS) -LE gpu $(JUNIT_ARGS) $(abspath $(ASAN_BUILD))/ctest-junit.xml

test: deps
	@$(MAKE) --no-print-directory test-normal
	@$(MAKE) --no-print-directory test-asan
	@sh scripts/test_summary.sh $(BUILD)/ctest-junit.xml $(ASAN_BUILD)/ctest-junit.xml

test-unit: build
	$(CTEST) --test-dir $(BUILD) --output-on-failure -L unit

test-gpu: build
	$(CTEST) --test-dir $(BUILD) --output-on-failure -L gpu

demo: deps-demo
	@$(MAKE) --no-print-directory build
	@sh scripts/demo.sh $(BUILD)

fuzz:
	@for h in $$(sed -n 's/^\([a-z_]*\)[[:space:]].*/\1/p' tests/fuzz/harnesses.txt); do \
	  sh tests/fuzz/run.sh $$h $(FUZZ_SECONDS) || exit 1; done

figures:
	@sh scripts/figures.sh

validate: build
	OUT=$(BUILD)/validation-run bash validation/record.sh $${VALIDATE_SECONDS:-280} $(BUILD)
	@echo "validate: per-group results in $(BUILD)/validation-run/recorded.tar.gz (report.md, joined.csv, scatter.svg each)"

clean:
	rm -rf $(BUILD) $(ASAN_BUILD)
