package main

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/npyflow/npyflow/internal/buildinfo"
)

func init() {
	register("version", "print the version of npyflow and its main libraries", runVersion)
}

// runVersion prints npyflow's version and commit (stamped in by the build,
// see internal/buildinfo) and the versions of the libraries that decide
// its formats.
func runVersion(e *env) error {
	if err := noArgs(e, "version"); err != nil {
		return err
	}
	version, commit := buildinfo.Get()
	if commit == "" {
		commit = "unknown"
	}
	fmt.Fprintf(e.stdout, "npyflow %s (build %s) %s %s/%s\n", version, commit, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			for _, want := range []string{"apache/arrow-go", "parquet-go/parquet-go", "gonum.org/v1/gonum"} {
				if strings.Contains(d.Path, want) {
					fmt.Fprintf(e.stdout, "  %s %s\n", d.Path, d.Version)
				}
			}
		}
	}
	return nil
}
