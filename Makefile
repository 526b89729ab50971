# torch-tidy: the two entry points. Both bootstrap a fresh Debian 12 machine first.
#   make demo   lint the bundled example and show the warning
#   make test   run every suite (CI runs exactly this)
LLVM_VERSION ?= 19
BUILD_DIR    ?= build
CACHE_DIR    ?= $(or $(TORCH_TIDY_CACHE),$(or $(XDG_CACHE_HOME),$(HOME)/.cache)/torch-tidy)
CTEST_ARGS   ?=
# Tests run side by side, one per core; those that compile with inductor share
# a RESOURCE_LOCK and run one at a time.
TEST_JOBS    ?= $(shell nproc 2>/dev/null || echo 2)

.PHONY: all bootstrap configure build demo test bench bench-index corpus sweep format ground-truth package wheel clean

all: build

bootstrap:
	@bash tools/bootstrap/bootstrap.sh

configure: bootstrap
	@cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=Release \
	  -DTORCH_TIDY_LLVM_VERSION=$(LLVM_VERSION) \
	  -DTORCH_TIDY_CACHE_DIR=$(CACHE_DIR) >$(BUILD_DIR).configure.log 2>&1 \
	  || { cat $(BUILD_DIR).configure.log; exit 1; }

build: configure
	@cmake --build $(BUILD_DIR)

# The demo needs Debian packages only (no PyPI) and builds only the module,
# torch-tidy, torch-tidy-sarif and the scripts (torch-tidy-project,
# torch-tidy-cdb), at -O1 (a third less compile time than Release), in its
# own build directory, $(BUILD_DIR)/demo, whose bin/ holds them all;
# `make test` builds everything in $(BUILD_DIR). tools/bench/demo_bench.sh times it from a fresh clone.
DEMO_DIR = $(BUILD_DIR)/demo
demo:
	@bash tools/bootstrap/bootstrap.sh --demo
	@mkdir -p $(DEMO_DIR)
	@cmake -S . -B $(DEMO_DIR) -G Ninja -DCMAKE_BUILD_TYPE=None -DCMAKE_CXX_FLAGS="-O1 -DNDEBUG" \
	  -DTORCH_TIDY_LLVM_VERSION=$(LLVM_VERSION) -DTORCH_TIDY_BUILD_RUNTIME=OFF \
	  -DTORCH_TIDY_SECOND_LLVM_VERSION= -DTORCH_TIDY_ASAN_LIT=OFF \
	  -DTORCH_TIDY_CACHE_DIR=$(CACHE_DIR) >$(DEMO_DIR).configure.log 2>&1 \
	  || { cat $(DEMO_DIR).configure.log; exit 1; }
	@cmake --build $(DEMO_DIR) --target TorchTidyModule torch-tidy torch-tidy-sarif torch-tidy-scripts
	@bash $(DEMO_DIR)/tools/demo.sh

# Re-run the torch.compile ground truth and rewrite docs/ground-truth.md.
ground-truth: bootstrap
	@bash tools/ground-truth/run.sh

test: build
	@cd $(BUILD_DIR) && ctest --output-on-failure --timeout 1500 -j $(TEST_JOBS) $(CTEST_ARGS)

# The Debian package (CPack): build/torch-tidy_<version>_<arch>.deb.
package: build
	@cd $(BUILD_DIR) && cpack -G DEB

# The wheel: dist/torch_tidy-<version>-py3-none-manylinux_<glibc>_<arch>.whl,
# its binaries linked statically against LLVM (tools/wheel). `make test`'s
# wheel-install packs the same wheel and installs it.
wheel: build
	@cmake --build $(BUILD_DIR) --target wheel

# The performance harness: prints the table, writes docs/performance.md.
bench: build
	@python3 tools/bench/run_bench.py --build $(BUILD_DIR)

# The project-wide operator index: learning a 1,000-file project's operators
# the first time and once cached, and what it adds to one clang-tidy run.
bench-index: build
	@python3 tools/bench/project_index_bench.py --build $(BUILD_DIR)

# torch-tidy over the public corpus (tools/corpus/repos.txt): crashes,
# timeouts, warnings, --fix that compiles, precision on the labels. Not in CI.
corpus: build
	@python3 tools/corpus/run.py --build $(BUILD_DIR)

# The custom-operator ecosystem (tools/corpus/sweep.txt), each project linted
# whole under the defaults; the table: tools/corpus/sweep_table.py
# $(BUILD_DIR)/sweep/report.json.
sweep: build
	@python3 tools/corpus/run.py --build $(BUILD_DIR) --whole --configs default --no-fix \
	  --out $(BUILD_DIR)/sweep --repos "$$(grep -v '^#' tools/corpus/sweep.txt | paste -sd, -)"

format:
	@git ls-files '*.cpp' '*.h' '*.cu' '*.cuh' | grep -v "^test/lit/" | xargs clang-format-19 -i

clean:
	rm -rf $(BUILD_DIR)
