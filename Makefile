# npyflow: build, test, demo, benchmarks and fuzzing.
GO        ?= go
BIN       := bin/npyflow
FUZZTIME  ?= 60s
PKGS      := ./...

.PHONY: all build test demo bench bench-compare fuzz lint fixtures check-fixtures clean

all: build

build:
	$(GO) build -o $(BIN) ./cmd/npyflow

# The test suite CI runs: formatting, vet, unit and end-to-end tests, with the
# race detector on the packages that run goroutines.
test: lint
	$(GO) test -count=1 $(PKGS)
	$(GO) test -count=1 -race -short ./pipeline/... ./arrowconv/... ./npyio/...
	$(GO) test -count=1 -race -short -run 'Concurrent|RoundTrip' ./parquetio/...

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	  if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet $(PKGS)

demo: build
	./$(BIN) run examples/demo.yaml

bench:
	$(GO) test -run '^$$' -bench . -benchmem $(PKGS)

# Side-by-side comparisons against numpy, pyarrow-free Go readers and DuckDB.
bench-compare:
	$(MAKE) -C benchmarks compare

# Runs every fuzz target for FUZZTIME each (make fuzz FUZZTIME=10m).
fuzz:
	@set -e; for pkg in $$($(GO) list ./...); do \
	  for t in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz' || true); do \
	    echo "== $$pkg $$t"; $(GO) test -run '^$$' -fuzz "^$$t$$" -fuzztime $(FUZZTIME) $$pkg; \
	  done; done

# Regenerates the numpy fixtures (needs Debian's python3-numpy).
fixtures:
	/usr/bin/python3 testdata/gen_fixtures.py

clean:
	rm -rf bin out
