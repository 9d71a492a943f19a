package parquetio

import (
	"bytes"
	"testing"

	"github.com/apache/arrow-go/v18/parquet/metadata"

	"github.com/npyflow/npyflow/internal/buildinfo"
	"github.com/npyflow/npyflow/npyio"
)

// TestCreatedBy: the footer names npyflow with the version and commit
// stamped into the build, in the form Arrow's parser (the one Arrow C++
// and pyarrow use to recognise writers) reads back into app, version and
// build.
func TestCreatedBy(t *testing.T) {
	defer func(v, c string) { buildinfo.Version, buildinfo.Commit = v, c }(buildinfo.Version, buildinfo.Commit)
	buildinfo.Version, buildinfo.Commit = "v1.4.2", "0123456789ab"

	npy := [][]byte{npyBytes(t, &npyio.Header{DType: npyio.Int32Type, Shape: []int{3}}, npyio.AsBytes([]int32{1, 2, 3}))}
	var buf bytes.Buffer
	calls := 0
	if _, err := WriteArray(&buf, countingOpener(npy, &calls), "x", nil, nil); err != nil {
		t.Fatal(err)
	}
	info, err := Describe(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	if want := "npyflow version 1.4.2 (build 0123456789ab)"; info.CreatedBy != want {
		t.Fatalf("created_by %q, want %q", info.CreatedBy, want)
	}
	v := metadata.NewAppVersion(info.CreatedBy)
	if v.App != "npyflow" || v.Build != "0123456789ab" || v.Version.Major != 1 || v.Version.Minor != 4 || v.Version.Patch != 2 {
		t.Errorf("Arrow parses %q as app %q build %q version %+v", info.CreatedBy, v.App, v.Build, v.Version)
	}
}
