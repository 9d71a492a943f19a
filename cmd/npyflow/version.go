package main

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
)

func init() {
	register("version", "print the version of npyflow and its main libraries", runVersion)
}

// runVersion prints npyflow's version (module version or VCS revision)
// and the versions of the libraries that decide its formats.
func runVersion(e *env) error {
	if err := noArgs(e, "version"); err != nil {
		return err
	}
	version, rev := "(devel)", ""
	var deps []string
	if bi, ok := debug.ReadBuildInfo(); ok {
		if bi.Main.Version != "" {
			version = bi.Main.Version
		}
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" && len(s.Value) >= 12 {
				rev = " " + s.Value[:12]
			}
		}
		for _, d := range bi.Deps {
			for _, want := range []string{"apache/arrow-go", "parquet-go/parquet-go", "gonum.org/v1/gonum"} {
				if strings.Contains(d.Path, want) {
					deps = append(deps, d.Path+" "+d.Version)
				}
			}
		}
	}
	fmt.Fprintf(e.stdout, "npyflow %s%s %s %s/%s\n", version, rev, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	for _, d := range deps {
		fmt.Fprintf(e.stdout, "  %s\n", d)
	}
	return nil
}
