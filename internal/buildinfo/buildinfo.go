// Package buildinfo holds the version and commit npyflow was built from.
// The release build stamps them in with the linker:
//
//	go build -trimpath -ldflags "-X github.com/npyflow/npyflow/internal/buildinfo.Version=1.2.0 \
//	    -X github.com/npyflow/npyflow/internal/buildinfo.Commit=0123456789ab" ./cmd/npyflow
//
// (make build and make release do). An unstamped build falls back to what
// the Go toolchain recorded: the module version, and the VCS revision when
// built inside a git checkout. The values are read by `npyflow version`
// and written into the files npyflow makes (Parquet's created_by).
package buildinfo

import (
	"runtime/debug"
	"strings"
	"sync"
)

// Version and Commit are set by the linker (-X); empty in a plain build.
var (
	Version string
	Commit  string
)

var fallback = sync.OnceValues(func() (version, commit string) {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "", ""
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		version = v
	}
	dirty := false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			commit = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if len(commit) > 12 {
		commit = commit[:12]
	}
	if commit != "" && dirty {
		commit += "-dirty"
	}
	return version, commit
})

// Get returns the version (without a leading "v"; "devel" when unknown)
// and the commit ("" when unknown).
func Get() (version, commit string) {
	version, commit = Version, Commit
	if version == "" || commit == "" {
		fv, fc := fallback()
		if version == "" {
			version = fv
		}
		if commit == "" {
			commit = fc
		}
	}
	version = strings.TrimPrefix(version, "v")
	if version == "" {
		version = "devel"
	}
	return version, commit
}

// CreatedBy returns the application string of the files npyflow writes, in
// the form parquet-mr and Arrow C++ write and parse:
// "npyflow version 1.2.0 (build 0123456789ab)", without the build part
// when the commit is unknown.
func CreatedBy() string {
	v, c := Get()
	s := "npyflow version " + v
	if c != "" {
		s += " (build " + c + ")"
	}
	return s
}
