package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/npyflow/npyflow/internal/fixtures"
	"github.com/npyflow/npyflow/npyio"
)

// TestConvertFromArrow: npy -> .arrow/.feather -> .npy gives numpy's
// array back exactly (dtype with byte order, shape, C-order bytes); ->
// .npz gives the array as one member, or a structured array as one member
// per field with numpy's values.
func TestConvertFromArrow(t *testing.T) {
	dir := t.TempDir()
	names := []string{"rec_strings_dates", "rec_struct_subarray", "f2_be_2d_f", "M8_ns_le_nat", "U4_le_unicode", "c16_be_1d", "rec_2d_f", "b1_nonzero_bytes", "i8_le_0d", "M8_ms_be_2d_f", "M8_ms_le_empty"}
	for i, name := range names {
		t.Run(name, func(t *testing.T) {
			fx := fixtures.NPYByName(t, name)
			want, err := npyio.ReadFile(fx.Path, nil)
			if err != nil {
				t.Fatal(err)
			}
			ipc := filepath.Join(dir, name+[]string{".arrow", ".feather"}[i%2])
			if code, msg := runCLI(t, "convert", fx.Path, ipc, "--compression", []string{"zstd", "none", "lz4"}[i%3]); code != 0 {
				t.Fatalf("to arrow: %d %s", code, msg)
			}
			back := filepath.Join(dir, name+".npy")
			if code, msg := runCLI(t, "convert", ipc, back); code != 0 {
				t.Fatalf("to npy: %d %s", code, msg)
			}
			got, err := npyio.ReadFile(back, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got.Header.DType.String() != want.Header.DType.String() || !equalInts(got.Header.Shape, want.Header.Shape) || !bytes.Equal(got.CData(), want.CData()) {
				t.Fatalf("npy: got %s %v, want %s %v", got.Header.DType, got.Header.Shape, want.Header.DType, want.Header.Shape)
			}

			npz := filepath.Join(dir, name+".npz")
			if code, msg := runCLI(t, "convert", ipc, npz); code != 0 {
				t.Fatalf("to npz: %d %s", code, msg)
			}
			z, err := npyio.OpenNPZ(npz, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer z.Close()
			dt := want.Header.DType
			if dt.Kind != npyio.Struct {
				if len(z.Members) != 1 || z.Members[0].Key != name {
					t.Fatalf("members %v, want [%s]", z.Keys(), name)
				}
				a, err := z.Members[0].ReadArray()
				if err != nil {
					t.Fatal(err)
				}
				if a.Header.DType.String() != want.Header.DType.String() || !equalInts(a.Header.Shape, want.Header.Shape) || !bytes.Equal(a.CData(), want.CData()) {
					t.Fatalf("npz: got %s %v, want %s %v", a.Header.DType, a.Header.Shape, want.Header.DType, want.Header.Shape)
				}
				return
			}
			if len(z.Members) != len(dt.Fields) {
				t.Fatalf("members %v, want one per field of %s", z.Keys(), dt)
			}
			for k := range dt.Fields {
				f := &dt.Fields[k]
				m := z.Member(f.Name)
				if m == nil {
					t.Fatalf("no member %q in %v", f.Name, z.Keys())
				}
				data, h := nativeRows(t, m)
				wantShape := append(append([]int(nil), want.Header.Shape...), f.Shape...)
				if !h.DType.Equal(f.Type) || !equalInts(h.Shape, wantShape) {
					t.Fatalf("member %s: %s %v, want %s %v", f.Name, h.DType, h.Shape, f.Type, wantShape)
				}
				// numpy's value of field k of element e, element by element.
				size, per := f.Type.Size, f.Count()
				for e, raw := range fx.Values {
					vals := fixtures.List(raw)[k]
					for j := 0; j < per; j++ {
						v := vals
						if len(f.Shape) > 0 {
							v = fixtures.List(vals)[j]
						}
						off := (e*per + j) * size
						if err := fixtures.CheckElement(f.Type.Native(), data[off:off+size], v); err != nil {
							t.Fatalf("member %s element %d.%d: %v", f.Name, e, j, err)
						}
					}
				}
			}
		})
	}
}

// nativeRows reads a whole member as npyio's Reader gives it: native
// byte order, C order.
func nativeRows(t *testing.T, m *npyio.Member) ([]byte, *npyio.Header) {
	t.Helper()
	r, err := m.Open()
	if err != nil {
		t.Fatal(err)
	}
	var out []byte
	for r.Remaining() > 0 {
		b, err := r.Next(1 << 16)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b.Data...)
	}
	return out, r.Header()
}

// TestConvertFromArrowErrors: a corrupt or unmappable Arrow input fails
// with one line naming the file and the problem, and leaves no output.
func TestConvertFromArrowErrors(t *testing.T) {
	dir := t.TempDir()
	fx := fixtures.NPYByName(t, "rec_strings_dates")
	good := filepath.Join(dir, "good.arrow")
	if code, msg := runCLI(t, "convert", fx.Path, good); code != 0 {
		t.Fatalf("%d %s", code, msg)
	}
	raw, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	trunc := filepath.Join(dir, "trunc.arrow")
	os.WriteFile(trunc, raw[:len(raw)-40], 0o644)
	garbage := filepath.Join(dir, "garbage.feather")
	os.WriteFile(garbage, bytes.Repeat([]byte{0xff, 0x00, 0x13}, 100), 0o644)
	for _, c := range []struct{ in, out, want string }{
		{trunc, "t.npy", "IPC"},
		{trunc, "t.npz", "IPC"},
		{garbage, "g.npy", "IPC"},
		{garbage, "g.parquet", "IPC"},
	} {
		out := filepath.Join(dir, c.out)
		code, msg := runCLI(t, "convert", c.in, out)
		if code == 0 || !strings.Contains(msg, filepath.Base(c.in)) || !strings.Contains(msg, c.want) || strings.Count(strings.TrimSpace(msg), "\n") > 0 {
			t.Errorf("%s -> %s: exit %d, %q", filepath.Base(c.in), c.out, code, msg)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("%s -> %s left an output", filepath.Base(c.in), c.out)
		}
	}
}

// TestConvertFromArrowPipe: an IPC stream read from a named pipe (read
// once, copied aside) converts to .npz like the same file does.
func TestConvertFromArrowPipe(t *testing.T) {
	dir := t.TempDir()
	fx := fixtures.NPYByName(t, "rec_strings_dates")
	file := filepath.Join(dir, "r.arrow")
	if code, msg := runCLI(t, "convert", fx.Path, file); code != 0 {
		t.Fatalf("%d %s", code, msg)
	}
	fromFile := filepath.Join(dir, "file.npz")
	if code, msg := runCLI(t, "convert", file, fromFile); code != 0 {
		t.Fatalf("%d %s", code, msg)
	}
	pipe := filepath.Join(dir, "p.arrow")
	if err := syscall.Mkfifo(pipe, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		f, err := os.OpenFile(pipe, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		f.Write(data)
		f.Close()
	}()
	fromPipe := filepath.Join(dir, "pipe.npz")
	if code, msg := runCLI(t, "convert", pipe, fromPipe); code != 0 {
		t.Fatalf("%d %s", code, msg)
	}
	a, _ := os.ReadFile(fromFile)
	b, _ := os.ReadFile(fromPipe)
	if len(a) == 0 || !bytes.Equal(a, b) {
		t.Errorf("npz from the pipe (%d bytes) differs from the one from the file (%d bytes)", len(b), len(a))
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 4 {
		t.Errorf("%d entries in the output directory, want 4 (no temporary copy left)", len(ents))
	}
}
