# npyflow: build, test, demo, benchmarks and fuzzing.
GO        ?= go
BIN       := bin/npyflow
FUZZTIME  ?= 60s
PKGS      := ./...

# What the build stamps in (npyflow version, Parquet created_by): the
# newest v* tag (0.0.0-dev without one) and the commit.
VERSION   ?= $(shell git describe --tags --match 'v[0-9]*' --dirty 2>/dev/null | sed 's/^v//' || true)
VERSION   := $(if $(VERSION),$(VERSION),0.0.0-dev)
COMMIT    ?= $(shell git rev-parse --short=12 HEAD 2>/dev/null)
BUILDINFO := github.com/npyflow/npyflow/internal/buildinfo
# disable_grpc_modules: the GCS client without its gRPC transport's
# directpath and xDS modules (envoy, spiffe; npyflow talks to GCS over its
# JSON API); arrow_json_stdlib: Arrow's JSON through encoding/json instead
# of goccy/go-json (npyflow reads no JSON through Arrow); grpcnotrace: gRPC
# (linked in by the GCS and Azure SDKs and Arrow Flight's schema code, never
# used to talk) without golang.org/x/net/trace, whose html/template use keeps
# the linker from dropping unused exported methods: 15 MB of the binary.
# scripts/binsize.sh shows what each module adds; `make check-size` fails
# past 60 MB.
TAGS      ?= disable_grpc_modules arrow_json_stdlib grpcnotrace
BUILDFLAGS = -trimpath -tags '$(TAGS)' -ldflags '-s -w -X $(BUILDINFO).Version=$(VERSION) -X $(BUILDINFO).Commit=$(COMMIT)'
PLATFORMS := linux/amd64 linux/arm64 darwin/amd64 darwin/arm64
IMAGE     ?= ghcr.io/npyflow/npyflow
CONTAINER ?= podman

.PHONY: all build release image image-context check-image test test-long test-s3 test-slurm demo bench bench-compare check-size fuzz lint fixtures hostile reliability check-numpy check-hdf5 check-netcdf check-writers check-zarr clean

all: build

build:
	$(GO) build $(BUILDFLAGS) -o $(BIN) ./cmd/npyflow

# Static binaries (no cgo) for every platform in PLATFORMS and their
# SHA-256 sums in dist/ (check with `cd dist && sha256sum -c SHA256SUMS`).
release:
	rm -rf dist && mkdir -p dist
	@set -e; for p in $(PLATFORMS); do os=$${p%/*}; arch=$${p#*/}; \
	  echo "npyflow $(VERSION) ($(COMMIT)) $$os/$$arch"; \
	  CGO_ENABLED=0 GOOS=$$os GOARCH=$$arch $(GO) build $(BUILDFLAGS) -o dist/npyflow-$$os-$$arch ./cmd/npyflow; \
	done
	cd dist && sha256sum npyflow-* > SHA256SUMS && cat SHA256SUMS

# The container image $(IMAGE):$(VERSION) and :latest, FROM scratch with
# the linux release binary for this machine's architecture (ARCH=arm64 for
# the other), CA certificates, /tmp and a non-root user (see Dockerfile).
# CONTAINER=docker builds with Docker instead of podman.
ARCH      ?= $(shell $(GO) env GOARCH)
image: image-context
	$(CONTAINER) build --platform linux/$(ARCH) -f Dockerfile -t $(IMAGE):$(VERSION) -t $(IMAGE):latest dist/image

# Checks the image's contents without a container runtime: the binary is
# static and runs `version` and a conversion from a root holding only
# what the image holds (chroot, as the image's user). Root only.
check-image: image-context
	EXPECT_VERSION=$(VERSION) EXPECT_COMMIT=$(COMMIT) scripts/check-image.sh dist/image/rootfs

# Fails if the linux/amd64 release binary (built as `make release` builds
# it) is larger than MAXSIZE bytes (issue 31: 60 MB with every backend in).
# Not part of `make test`: it costs a link of the whole binary (20-40 s).
MAXSIZE   ?= 60000000
check-size:
	mkdir -p dist
	CGO_ENABLED=0 GOOS=linux GOARCH=amd64 $(GO) build $(BUILDFLAGS) -o dist/npyflow-size-check ./cmd/npyflow
	@size=$$(stat -c %s dist/npyflow-size-check); rm -f dist/npyflow-size-check; \
	  echo "npyflow linux/amd64: $$size bytes (limit $(MAXSIZE))"; \
	  [ $$size -le $(MAXSIZE) ] || { echo "binary larger than $(MAXSIZE) bytes: scripts/binsize.sh shows what grew"; exit 1; }

image-context:
	mkdir -p dist
	CGO_ENABLED=0 GOOS=linux GOARCH=$(ARCH) $(GO) build $(BUILDFLAGS) -o dist/npyflow-linux-$(ARCH) ./cmd/npyflow
	scripts/image-context.sh dist/npyflow-linux-$(ARCH) dist/image

# The test suite CI runs: formatting, vet, unit and end-to-end tests, then
# the race detector on the code that runs goroutines: the engine (pipeline)
# and zarr whole, and in the libraries the tests that drive their worker
# pools (RACE_RUN: parallel chunk reading and compression in hdf5, matfile's
# parallel zlib, parquetio's row-group decoding and column encoding,
# arrowconv's read-ahead). npyio runs no goroutines. The CLI's hostile-input
# children run once, without the race detector (each is a process start;
# their concurrency is the engine's, raced above). `make test-long` runs
# the damage and mutation tests at every position (NPYFLOW_LONG=1). Tests
# build with the release's TAGS: they test what ships.
TESTFLAGS := -count=1 -tags '$(TAGS)'
RACE_RUN := Concurrent|Parallel|Workers|ReadAhead|ConvertIPC|WriteMappedNPY|RecordsOutliveNext|RoundTrip|WriteLevel5|WriteV73|Compress|Zlib
test: lint
	$(GO) test $(TESTFLAGS) $(PKGS)
	$(GO) test $(TESTFLAGS) -race -short ./pipeline/ ./zarr/
	$(GO) test $(TESTFLAGS) -race -short -run '$(RACE_RUN)' ./arrowconv/ ./hdf5/ ./matfile/ ./parquetio/
	$(GO) test $(TESTFLAGS) -race -short -skip 'TestHostile' ./cmd/npyflow/

test-long:
	NPYFLOW_LONG=1 NPYFLOW_MUTANTS=all $(GO) test $(TESTFLAGS) -timeout 2h $(PKGS)

# Object-storage tests against a real S3-compatible server: SeaweedFS, built
# once from the Go module proxy and cached in ~/.cache/npyflow/weed by
# scripts/seaweedfs.sh (minutes the first time), started by the tests on free
# ports; and against Azurite (azblob://) when it is installed
# (npm install --prefix /tmp/azurite azurite, or NPYFLOW_AZURITE=path of
# azurite-blob; skipped with a log line otherwise), started the same way. `make test` runs the same
# behaviour tests on the local backend and in-memory buckets.
test-s3:
	@log=$$(mktemp) && NPYFLOW_WEED=$$(scripts/seaweedfs.sh) \
	  NPYFLOW_AZURITE=$${NPYFLOW_AZURITE:-/tmp/azurite/node_modules/.bin/azurite-blob} $(GO) test -count=1 -v -run 'S3|Azure' ./objstore/ >$$log 2>&1; \
	  rc=$$?; grep -E '^(--- |ok|FAIL|panic)|no Azurite|azurite-blob on|weed server' $$log; [ $$rc = 0 ] || tail -50 $$log; rm -f $$log; exit $$rc
	@dir=$$(mktemp -d) && out=$$(scripts/seaweedfs.sh start $$dir) && eval "$$out" && \
	  { NPYFLOW_S3_ENDPOINT=$$NPYFLOW_S3_ENDPOINT $(GO) test -count=1 -tags s3 -run 'S3' ./pipeline/; rc=$$?; \
	    kill $$WEED_PID; for i in 1 2 3 4 5; do kill -0 $$WEED_PID 2>/dev/null && sleep 1; done; \
	    kill -9 $$WEED_PID 2>/dev/null; rm -rf $$dir; exit $$rc; }

# Sharded runs under a real single-node Slurm, started and stopped by the
# script (installs slurm-wlm and munge when missing; root; minutes): the
# example and its faults, datasets checked with DuckDB. Not part of test.
test-slurm:
	scripts/slurm-test.sh

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	  if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet -tags '$(TAGS)' $(PKGS)

demo: build
	./$(BIN) run examples/demo.yaml
	./$(BIN) inspect out/demo/matrix_describe.npy

bench:
	$(GO) test -run '^$$' -bench . -benchmem $(PKGS)

# Side-by-side comparisons against numpy, pyarrow-free Go readers and DuckDB.
bench-compare:
	$(MAKE) -C benchmarks compare

# Runs every fuzz target for FUZZTIME each (make fuzz FUZZTIME=10m), then
# every mutant of the mutation test (cmd/npyflow/mutation_reliability_test.go)
# and every position of matfile's damage tests.
fuzz:
	@set -e; for pkg in $$($(GO) list ./...); do \
	  for t in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz' || true); do \
	    echo "== $$pkg $$t"; $(GO) test -run '^$$' -fuzz "^$$t$$" -fuzztime $(FUZZTIME) $$pkg; \
	  done; done
	NPYFLOW_LONG=1 NPYFLOW_MUTANTS=all $(GO) test -count=1 -timeout 2h -run '^TestMutants$$|Damaged' ./cmd/npyflow/ ./matfile/

# Regenerates the numpy fixtures (needs Debian's python3-numpy).
fixtures:
	/usr/bin/python3 testdata/gen_fixtures.py

# Hostile inputs, zip bombs, disk full, read errors and signals through the
# CLI (Linux), in memory-limited child processes. Part of `make test` too;
# this target runs only them, without -short.
reliability:
	$(GO) test -count=1 -run 'TestHostileInputs|TestHostileInspect|TestZipBombs|TestDiskFull|TestReadErrorMidFile|TestSignals' ./cmd/npyflow/

# Regenerates testdata/hostile.
hostile:
	$(GO) run testdata/hostile/gen_hostile.go

# Writes the HDF5 writer's test files again and checks them with h5py and
# h5dump (needs Debian's python3-h5py and hdf5-tools; without -short it also
# writes and checks a sparse 4.5 GiB file); then every .npy of testdata/
# through the hdf5 sink (pipeline/testdata/h5all/check_h5all.py: h5py's
# values and h5dump; --update rewrites the h5py.json the Go test compares).
check-hdf5:
	rm -rf /tmp/npyflow-hdf5w && mkdir -p /tmp/npyflow-hdf5w
	HDF5_WRITTEN_DIR=/tmp/npyflow-hdf5w $(GO) test -count=1 -run TestWriteFixtures ./hdf5/
	/usr/bin/python3 hdf5/testdata/check_written.py /tmp/npyflow-hdf5w
	rm -rf /tmp/npyflow-h5sink && mkdir -p /tmp/npyflow-h5sink
	NPYFLOW_H5SINK_DIR=/tmp/npyflow-h5sink $(GO) test -count=1 -run 'TestHDF5SinkCompression$$' ./pipeline/
	/usr/bin/python3 pipeline/testdata/h5sink/check_h5sink.py /tmp/npyflow-h5sink
	rm -rf /tmp/npyflow-h5all && mkdir -p /tmp/npyflow-h5all
	NPYFLOW_H5ALL_DIR=/tmp/npyflow-h5all $(GO) test -count=1 -run 'TestHDF5AllDTypes$$' ./pipeline/
	/usr/bin/python3 pipeline/testdata/h5all/check_h5all.py /tmp/npyflow-h5all

# Writes the netCDF-4 writer's test files (TestNetCDFWrite) and checks them
# with ncdump -h (against the committed .cdl), netCDF4-python and xarray
# (needs Debian's netcdf-bin, python3-netcdf4 and python3-xarray).
check-netcdf:
	rm -rf /tmp/npyflow-netcdf && mkdir -p /tmp/npyflow-netcdf
	NPYFLOW_NC_DIR=/tmp/npyflow-netcdf $(GO) test -count=1 -run 'TestNetCDFWrite$$' ./pipeline/
	NPYFLOW_NC_DIR=/tmp/npyflow-netcdf $(GO) test -count=1 -run 'TestNetCDFWriterLayout$$' ./hdf5/
	/usr/bin/python3 -W ignore pipeline/testdata/netcdf_write/check_netcdf.py /tmp/npyflow-netcdf

# The write sweep (pipeline/writesweep_test.go): writes numpy's inputs
# (pipeline/testdata/sweep/in) to every output format, has each format's
# own tool read them again (numpy, h5py, scipy: Debian's python3 packages;
# DuckDB and Arrow JS: npm install @duckdb/node-api apache-arrow lz4js in
# SWEEP_NODE_MODULES, outside the repository) into
# pipeline/testdata/sweep/*.json, then runs the test, which compares the
# readings with numpy's values. Review the JSON diff before committing it.
SWEEP_NODE_MODULES ?= /tmp/npm-writers
check-writers:
	rm -rf out/sweep && mkdir -p out/sweep
	NPYFLOW_SWEEP_OUT=$(CURDIR)/out/sweep $(GO) test -count=1 -run '^TestWriteSweep$$' ./pipeline/
	cd pipeline/testdata/sweep && /usr/bin/python3 read.py $(CURDIR)/out/sweep
	cd pipeline/testdata/sweep && node read.mjs $(CURDIR)/out/sweep $(SWEEP_NODE_MODULES)
	$(GO) test -count=1 -run '^TestWriteSweep$$' ./pipeline/

# Writes every fixture again with npyflow and loads the results with numpy.
check-numpy:
	rm -rf out/numpy-check && mkdir -p out/numpy-check
	NPYFLOW_NUMPY_OUT=$(CURDIR)/out/numpy-check $(GO) test -count=1 -run TestWriteForNumpy ./npyio/
	/usr/bin/python3 testdata/check_written.py out/numpy-check

# Regenerates the Zarr fixtures with zarr-python 2 (Debian python3-zarr,
# python3-numcodecs) and zarrita (npm, installed in ZARR_NPM), then
# cross-reads: npyflow reads both tools' 512x512x3 reference images,
# zarr-python reads npyflow's v2 output and zarrita its v3 output.
ZARR_NPM ?= /tmp/npm-zarr
check-zarr:
	mkdir -p $(ZARR_NPM) && cd $(ZARR_NPM) && { [ -f package.json ] || npm init -y >/dev/null; } && npm install --no-audit --no-fund zarrita@0.7.5 @zarrita/storage@0.2.0 >/dev/null
	/usr/bin/python3 zarr/testdata/gen_v2_zarr_python.py
	NODE_PATH=$(ZARR_NPM)/node_modules node zarr/testdata/gen_v3_zarrita.mjs
	$(GO) test -count=1 -run 'TestReadZarrPythonV2|TestReadZarritaV3' ./zarr/
	rm -rf /tmp/npyflow-zarr && mkdir -p /tmp/npyflow-zarr
	/usr/bin/python3 zarr/testdata/xcheck_v2.py write /tmp/npyflow-zarr
	NODE_PATH=$(ZARR_NPM)/node_modules node zarr/testdata/xcheck_v3.mjs write /tmp/npyflow-zarr
	ZARR_XDIR=/tmp/npyflow-zarr $(GO) test -count=1 -v -run 'TestCrossTools' ./zarr/
	/usr/bin/python3 zarr/testdata/xcheck_v2.py read /tmp/npyflow-zarr
	NODE_PATH=$(ZARR_NPM)/node_modules node zarr/testdata/xcheck_v3.mjs read /tmp/npyflow-zarr

clean:
	rm -rf bin out dist
