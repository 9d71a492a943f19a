package pipeline

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/npyflow/npyflow/pipeline/job"
	"github.com/npyflow/npyflow/zarr"
)

// TestOptionsDeclared: every component npyflow registers declares its
// options as a struct (job.Spec.Options), and Load gives each a fresh
// one of that type.
func TestOptionsDeclared(t *testing.T) {
	for _, k := range []job.Kind{job.Source, job.Transform, job.Sink} {
		for _, s := range job.Specs(k) {
			if s.Options == nil {
				t.Errorf("%s %s: no options struct", k, s.Type)
			}
		}
	}
}

// TestOptionEnums: the allowed values the tags spell out are the
// libraries' own lists.
func TestOptionEnums(t *testing.T) {
	enum := func(k job.Kind, typ, name string) []string {
		return job.Lookup(k, typ).Field(name).Enum
	}
	if got, want := enum(job.Sink, "hdf5", "compression"), hdf5CompressionNames(); !slices.Equal(got, want) {
		t.Errorf("hdf5 compression: tag %v, hdf5.Compressions %v", got, want)
	}
	if got := enum(job.Sink, "zarr", "compression"); !slices.Equal(got, zarr.Compressions) {
		t.Errorf("zarr compression: tag %v, zarr.Compressions %v", got, zarr.Compressions)
	}
}

// TestOptionsTyped: a job's values reach the builders typed, defaults
// filled in, absent optional values nil.
func TestOptionsTyped(t *testing.T) {
	j, err := job.Load("job.yaml", []byte(`version: 1
sources:
  raw: {type: parquet, paths: x.parquet, fill: {a: "1"}, decimal: scaled}
transforms:
  s: {type: slice, input: raw, step: 2}
  u: {type: unstack, input: s, row_number: r}
sinks:
  out: {type: parquet, input: u, path: o.parquet, row_group_rows: 10, dictionary: [a, b]}
  h5: {type: hdf5, input: u, path: o.h5}
`), nil)
	if err != nil {
		t.Fatal(err)
	}
	src := job.Options[parquetSourceOpts](j.Component("raw"))
	if src.Paths[0] != "x.parquet" || src.Column != "value" || src.Decimal != "scaled" || len(src.Fill) != 1 || src.Fill[0].Value != "1" {
		t.Errorf("source: %+v", src)
	}
	if fo := foreignOf(j.Component("raw")); !fo.Scaled || fo.Fill["a"] != "1" {
		t.Errorf("foreign options: %+v", fo)
	}
	sl := job.Options[sliceTransformOpts](j.Component("s"))
	if sl.Start != 0 || sl.Step != 2 || sl.Stop != nil {
		t.Errorf("slice: %+v", sl)
	}
	if u := job.Options[unstackTransformOpts](j.Component("u")); u.RowNumber == nil || *u.RowNumber != "r" || u.Index != nil || u.Axes != 1 {
		t.Errorf("unstack: %+v", u)
	}
	pq := job.Options[parquetSinkOpts](j.Component("out"))
	if pq.Compression != "zstd" || pq.RowGroupRows != 10 || !slices.Equal(pq.Dictionary, []string{"a", "b"}) || pq.MaxOpenFiles != nil || pq.Mode != "overwrite" {
		t.Errorf("parquet sink: %+v", pq)
	}
	if path, mode := fileSinkOf(j.Component("out")); path != "o.parquet" || mode != "overwrite" {
		t.Errorf("parquet sink path %q mode %q", path, mode)
	}
	h := job.Options[hdf5SinkOpts](j.Component("h5"))
	if h.Compression != nil || !h.Compressed || h.Strings != "fixed" || h.Dataset != "{member}" {
		t.Errorf("hdf5 sink: %+v", h)
	}
}

// TestFlagSpellings: convert's flags take the spellings the libraries
// take (any case, the codecs' other names), as the job's canonical value.
func TestFlagSpellings(t *testing.T) {
	for _, c := range []struct {
		kind       job.Kind
		typ, field string
		text       string
		want       any
	}{
		{job.Sink, "parquet", "compression", "LZ4_RAW", "lz4"},
		{job.Sink, "parquet", "compression", "uncompressed", "none"},
		{job.Sink, "arrow", "compression", "ZSTD", "zstd"},
		{job.Sink, "hdf5", "compression", "gzip", "deflate"},
		{job.Sink, "npz", "compressed", "deflate", true},
		{job.Sink, "mat", "compressed", "none", false},
		{job.Source, "parquet", "decimal", "Scaled", "scaled"},
	} {
		v, err := job.Lookup(c.kind, c.typ).Field(c.field).ParseFlag(c.text)
		if err != nil || v != c.want {
			t.Errorf("%s %s.%s %q: %#v, %v; want %#v", c.kind, c.typ, c.field, c.text, v, err, c.want)
		}
	}
}

// TestRegisterFormatWithoutOptions: a format's sink must declare its
// options as a struct with a path and a mode; registering one that does
// not is a bug, reported at once.
func TestRegisterFormatWithoutOptions(t *testing.T) {
	for _, opts := range []any{nil, struct {
		X string `opt:"x"`
	}{}} {
		func() {
			defer func() {
				if p := recover(); p == nil || !strings.Contains(fmt.Sprint(p), `the sink of format "nooptions" declares no options struct`) {
					t.Errorf("%T: panic %v", opts, p)
				}
			}()
			RegisterFormat(&Format{Name: "nooptions", Exts: []string{".noopt"}, Sink: &job.Spec{Kind: job.Sink, Options: opts}})
		}()
	}
	if formatNamed("nooptions") != nil || job.Lookup(job.Sink, "nooptions") != nil {
		t.Error("the format was registered")
	}
}
