package buildinfo

import "testing"

func TestGet(t *testing.T) {
	defer func(v, c string) { Version, Commit = v, c }(Version, Commit)

	Version, Commit = "v0.9.1", "abcdef012345"
	if v, c := Get(); v != "0.9.1" || c != "abcdef012345" {
		t.Errorf("stamped: Get() = %q, %q", v, c)
	}
	if got, want := CreatedBy(), "npyflow version 0.9.1 (build abcdef012345)"; got != want {
		t.Errorf("CreatedBy() = %q, want %q", got, want)
	}

	// Unstamped: the toolchain's record (a test binary has no VCS
	// revision and the main module's version is "(devel)").
	Version, Commit = "", ""
	fv, fc := fallback()
	v, c := Get()
	if fv == "" && v != "devel" {
		t.Errorf("unstamped version %q, want devel", v)
	}
	if c != fc {
		t.Errorf("unstamped commit %q, want %q", c, fc)
	}
	if fc == "" && CreatedBy() != "npyflow version "+v {
		t.Errorf("unstamped CreatedBy() = %q", CreatedBy())
	}
}
