# Two commands for a newcomer:
#   make test   build everything, run the test suite (normal build, then the
#               ASan+UBSan build of the pure-C parts)
#   make demo   build, then run the main job (profile the histogram example on
#               a GPU; without one, apply the model to counters recorded on one)
# Other targets: build, build-asan, test-unit, test-gpu, figures, validate, clean.
#   make validate   (GPU) the validation suite: times, counters, every model
#                   variant, and the comparison in $(BUILD)/validation-run/

BUILD      ?= build
ASAN_BUILD ?= build-asan
JOBS       ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE      ?= cmake
CTEST      ?= ctest
CMAKE_ARGS ?=

.PHONY: all build build-asan test test-normal test-asan test-unit test-gpu demo figures validate clean

all: build

$(BUILD)/CMakeCache.txt:
	$(CMAKE) -S . -B $(BUILD) $(CMAKE_ARGS)

build: $(BUILD)/CMakeCache.txt
	$(CMAKE) --build $(BUILD) -j $(JOBS)

$(ASAN_BUILD)/CMakeCache.txt:
	$(CMAKE) -S . -B $(ASAN_BUILD) -DGPUQ_SANITIZE=ON -DGPUQ_WITH_CUDA=OFF -DCMAKE_BUILD_TYPE=Debug

build-asan: $(ASAN_BUILD)/CMakeCache.txt
	$(CMAKE) --build $(ASAN_BUILD) -j $(JOBS)

test-normal: build
	$(CTEST) --test-dir $(BUILD) --output-on-failure -j $(JOBS)

test-asan: build-asan
	$(CTEST) --test-dir $(ASAN_BUILD) --output-on-failure -j $(JOBS) -LE gpu

test: test-normal test-asan

test-unit: build
	$(CTEST) --test-dir $(BUILD) --output-on-failure -L unit

test-gpu: build
	$(CTEST) --test-dir $(BUILD) --output-on-failure -L gpu

demo: build
	@sh scripts/demo.sh $(BUILD)

figures:
	@sh scripts/figures.sh

validate: build
	OUT=$(BUILD)/validation-run bash validation/record.sh $${VALIDATE_SECONDS:-280} $(BUILD)
	@echo "validate: per-group results in $(BUILD)/validation-run/recorded.tar.gz (report.md, joined.csv, scatter.svg each)"

clean:
	rm -rf $(BUILD) $(ASAN_BUILD)
