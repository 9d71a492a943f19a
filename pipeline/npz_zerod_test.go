package pipeline

import (
	"archive/zip"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/npyflow/npyflow/internal/fixtures"
	"github.com/npyflow/npyflow/npyio"
	"github.com/npyflow/npyflow/pipeline/internal/rowbytes"
	"github.com/npyflow/npyflow/pipeline/job"
)

// zipMembers returns the uncompressed bytes of every member of a zip
// archive, by name, and the names in order.
func zipMembers(t *testing.T, path string) (map[string][]byte, []string) {
	t.Helper()
	z, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	out := map[string][]byte{}
	var names []string
	for _, f := range z.File {
		r, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(r)
		r.Close()
		if err != nil {
			t.Fatal(err)
		}
		out[f.Name] = b
		names = append(names, f.Name)
	}
	return out, names
}

// TestNPZZeroD: numpy's 0-d .npy fixtures written by the npz sink, one
// input per member, through transforms that keep every row, become 0-d
// members whose .npy bytes are numpy's file (np.savez writes np.save's
// bytes); values are checked against numpy's JSON. A member made of two
// inputs, or fed through filter, is 1-d.
func TestNPZZeroD(t *testing.T) {
	fx, err := filepath.Abs("../testdata/npy")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	// Little-endian or one-byte types: the sink writes native (little-endian) order.
	stems := []string{"f8_le_0d", "U4_le_0d", "b1_0d", "M8_D_le_0d", "S5_0d", "c16_le_0d", "i8_le_0d", "u8_le_0d", "m8_25s_le_0d", "V3_0d", "f2_le_0d"}
	jb := "version: 1\nsources:\n"
	for i, stem := range stems {
		jb += fmt.Sprintf("  s%d: {type: npy, paths: %q}\n", i, fx+"/"+stem+".npy")
	}
	jb += `  be: {type: npy, paths: ["` + fx + `/f8_be_0d.npy", "` + fx + `/f8_le_0d.npy"]}
  rec: {type: npy, paths: "` + fx + `/rec_simple_0d.npy"}
transforms:
  f4: {type: cast, input: s0, to: float32}
  recs: {type: select, input: rec, fields: [b, a]}
  kept: {type: filter, input: recs, where: "0 < a"}
sinks:
  per_member: {type: npz, input: be, path: "${OUT}/be.npz", member: "{stem}"}
  one_member: {type: npz, input: be, path: "${OUT}/both.npz"}
  cast: {type: npz, input: f4, path: "${OUT}/cast.npz", member: lr, compressed: true}
  rec_out: {type: npz, input: recs, path: "${OUT}/rec.npz"}
  filtered: {type: npz, input: kept, path: "${OUT}/filtered.npz"}
`
	for i := range stems {
		jb += fmt.Sprintf("  o%d: {type: npz, input: s%d, path: \"${OUT}/each/{stem}.npz\", member: \"{stem}\"}\n", i, i)
	}
	if err := os.WriteFile(filepath.Join(dir, "job.yaml"), []byte(jb), 0o644); err != nil {
		t.Fatal(err)
	}
	out, _, err := runJob(t, filepath.Join(dir, "job.yaml"), nil)
	if err != nil {
		t.Fatal(err)
	}
	// Each 0-d input alone: numpy's bytes, and numpy's value.
	for _, stem := range stems {
		members, names := zipMembers(t, filepath.Join(out, "each", stem+".npz"))
		want, _ := os.ReadFile(filepath.Join(fx, stem+".npy"))
		if len(names) != 1 || names[0] != stem+".npy" {
			t.Fatalf("%s: members %v", stem, names)
		}
		if got := members[stem+".npy"]; !bytes.Equal(got, want) {
			t.Errorf("%s: member is not numpy's bytes:\n%q\n%q", stem, got, want)
		}
	}
	member := func(file, key string) *npyio.Array {
		t.Helper()
		z, err := npyio.OpenNPZ(filepath.Join(out, file), nil)
		if err != nil {
			t.Fatal(err)
		}
		defer z.Close()
		m := z.Member(key)
		if m == nil {
			t.Fatalf("%s: no member %q; members %v", file, key, z.Keys())
		}
		a, err := m.ReadArray()
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	cases := []struct {
		file, key string
		shape     string
		fixtures  []string // the values, in order
	}{
		{"be.npz", "f8_be_0d", "[] '<f8'", []string{"f8_be_0d"}},
		{"be.npz", "f8_le_0d", "[] '<f8'", []string{"f8_le_0d"}},
		{"both.npz", "arr_0", "[2] '<f8'", []string{"f8_be_0d", "f8_le_0d"}},
		{"rec.npz", "arr_0", "[] [('b', '<f8'), ('a', '<i4')]", nil},
		{"filtered.npz", "arr_0", "[1] [('b', '<f8'), ('a', '<i4')]", nil},
		{"cast.npz", "lr", "[] '<f4'", nil},
	}
	for _, tc := range cases {
		a := member(tc.file, tc.key)
		if got := fmt.Sprint(a.Header.Shape) + " " + a.DType.String(); got != tc.shape {
			t.Errorf("%s:%s: shape and dtype %s, want %s", tc.file, tc.key, got, tc.shape)
		}
		for i, name := range tc.fixtures {
			raw := fixtures.NPYByName(t, name).Values[0]
			if err := fixtures.CheckElement(a.DType, a.Data[i*a.DType.Size:(i+1)*a.DType.Size], raw); err != nil {
				t.Errorf("%s:%s[%d]: %v", tc.file, tc.key, i, err)
			}
		}
	}
	// The selected record, field by field, against numpy's (a, b).
	rv := fixtures.List(fixtures.NPYByName(t, "rec_simple_0d").Values[0])
	for _, file := range []string{"rec.npz", "filtered.npz"} {
		a := member(file, "arr_0")
		if err := fixtures.CheckElement(a.DType, a.Data, []byte("["+string(rv[1])+","+string(rv[0])+"]")); err != nil {
			t.Errorf("%s: %v", file, err)
		}
	}
	// The cast: numpy's float64 value as float32.
	c := member("cast.npz", "lr")
	src := fixtures.NPYByName(t, "f8_le_0d")
	if got, want := rowbytes.Load[float32](c.Data, 0), float32(fixtures.Float(src.Values[0])); got != want {
		t.Errorf("cast value %v, want %v", got, want)
	}
}

// TestNPZZeroDCheckpoint copies the 0-d members of numpy's checkpoints
// (np.savez(lr=0.01, step=7, ...), stored and deflated) through a job:
// every member the npz sink writes is numpy's member, byte for byte.
func TestNPZZeroDCheckpoint(t *testing.T) {
	fx, err := filepath.Abs("testdata/npz0d")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	keys := []string{"lr", "step", "tag", "done", "w"}
	jb := "version: 1\nsources:\n"
	for _, k := range keys {
		jb += fmt.Sprintf("  %s: {type: npz, paths: %q, members: [%s]}\n", k, fx+"/ckpt_*.npz", k)
	}
	jb += "transforms:\n  lr32: {type: cast, input: lr, to: float32}\n  flat: {type: flatten, input: lr32}\n  renamed: {type: rename, input: flat, fields: {value: rate}}\nsinks:\n"
	for i, k := range keys {
		jb += fmt.Sprintf("  o_%s: {type: npz, input: %s, path: \"${OUT}/{stem}_{member}.npz\", member: \"{member}\", compressed: %v}\n", k, k, i%2 == 0)
	}
	jb += "  rate: {type: npz, input: renamed, path: \"${OUT}/{stem}_rate.npz\", member: rate}\n"
	if err := os.WriteFile(filepath.Join(dir, "job.yaml"), []byte(jb), 0o644); err != nil {
		t.Fatal(err)
	}
	out, _, err := runJob(t, filepath.Join(dir, "job.yaml"), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, ckpt := range []string{"ckpt_1", "ckpt_2"} {
		want, _ := zipMembers(t, filepath.Join(fx, ckpt+".npz"))
		for _, k := range keys {
			got, names := zipMembers(t, filepath.Join(out, ckpt+"_"+k+".npz"))
			if len(names) != 1 || !bytes.Equal(got[k+".npy"], want[k+".npy"]) {
				t.Errorf("%s %s: members %v, %q; numpy's %q", ckpt, k, names, got[k+".npy"], want[k+".npy"])
			}
		}
		// Cast and renamed, the member is still 0-d: the float32 of numpy's lr
		// in a 1-field record.
		z, err := npyio.OpenNPZ(filepath.Join(out, ckpt+"_rate.npz"), nil)
		if err != nil {
			t.Fatal(err)
		}
		a, err := z.Member("rate").ReadArray()
		z.Close()
		if err != nil {
			t.Fatal(err)
		}
		lr := rowbytes.Load[float64](want["lr.npy"], len(want["lr.npy"])-8)
		if got := fmt.Sprint(a.Header.Shape); got != "[]" || rowbytes.Load[float32](a.Data, 0) != float32(lr) {
			t.Errorf("%s rate: shape %s value %v, want [] %v", ckpt, got, rowbytes.Load[float32](a.Data, 0), float32(lr))
		}
	}
}

// TestMissingInputs: a missing file or directory is named in one line at
// the pattern's position.
func TestMissingInputs(t *testing.T) {
	dir := t.TempDir()
	jb := `version: 1
sources:
  a: {type: npy, paths: nothere.npy}
  b: {type: npy, paths: "nodir/*.npy"}
sinks:
  o: {type: npy, input: [a], path: o.npy}
  p: {type: npy, input: [b], path: p.npy}
`
	path := filepath.Join(dir, "job.yaml")
	if err := os.WriteFile(path, []byte(jb), 0o644); err != nil {
		t.Fatal(err)
	}
	j, err := job.LoadFile(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = NewPlan(context.Background(), j, nil)
	want := []string{
		path + ":3:25: sources.a.paths[0]: no such file: " + filepath.Join(dir, "nothere.npy"),
		path + `:4:25: sources.b.paths[0]: pattern "nodir/*.npy" matched no files (looked in ` + filepath.Join(dir, "nodir") + `, which does not exist; set allow_empty: true to allow)`,
	}
	if err == nil || err.Error() != strings.Join(want, "\n") {
		t.Errorf("err = %v\nwant %s", err, strings.Join(want, "\n"))
	}
}
