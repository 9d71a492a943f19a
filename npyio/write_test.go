package npyio_test

import (
	"archive/zip"
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/npyflow/npyflow/internal/fixtures"
	"github.com/npyflow/npyflow/npyio"
)

// TestStreamWriter writes every C-order fixture row batch by row batch
// through a stream writer (row count unknown up front) and expects numpy's
// exact file.
func TestStreamWriter(t *testing.T) {
	for _, fx := range fixtures.NPYs(t) {
		if handWritten(fx) || len(fx.Shape) == 0 || fx.FortranOrder || fx.Name == "b1_nonzero_bytes" {
			continue
		}
		t.Run(fx.Name, func(t *testing.T) {
			want, err := os.ReadFile(fx.Path)
			if err != nil {
				t.Fatal(err)
			}
			r, err := npyio.NewReader(bytes.NewReader(want), nil)
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(t.TempDir(), "out.npy")
			f, err := os.Create(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			w, err := npyio.NewStreamWriter(f, r.Header().DType, r.Header().Shape[1:])
			if err != nil {
				t.Fatal(err)
			}
			for {
				b, err := r.Next(2)
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				// Write in odd-sized pieces: elements split across calls.
				for len(b.Data) > 0 {
					k := min(3, len(b.Data))
					if _, err := w.Write(b.Data[:k]); err != nil {
						t.Fatal(err)
					}
					b.Data = b.Data[k:]
				}
			}
			if r.RowSize() == 0 {
				err = w.SetRows(int(r.Rows()))
			} else {
				err = w.Close()
			}
			if err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("stream-written file differs:\n got %q\nwant %q", head(got), head(want))
			}
		})
	}
}

func TestWriterChecksCount(t *testing.T) {
	var buf bytes.Buffer
	w, err := npyio.NewWriter(&buf, &npyio.Header{DType: npyio.Float64Type, Shape: []int{2}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(make([]byte, 8)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); !errors.Is(err, npyio.ErrShape) {
		t.Fatalf("Close after half the data: %v, want ErrShape", err)
	}
	w, _ = npyio.NewWriter(&buf, &npyio.Header{DType: npyio.Float64Type, Shape: []int{1}})
	if _, err := w.Write(make([]byte, 16)); !errors.Is(err, npyio.ErrShape) {
		t.Fatalf("writing past the shape: %v, want ErrShape", err)
	}
	if _, err := w.Write(make([]byte, 8)); err == nil {
		t.Fatal("error is not sticky")
	}
}

func TestWriterRefusesObjects(t *testing.T) {
	dt, err := npyio.ParseTypeStr("|O")
	if err != nil {
		t.Fatal(err)
	}
	_, err = npyio.NewWriter(io.Discard, &npyio.Header{DType: dt, Shape: []int{1}})
	if !errors.Is(err, npyio.ErrObject) {
		t.Fatalf("object write: %v", err)
	}
}

// TestWriteForNumpy writes every fixture again (with npyio's writer) into
// $NPYFLOW_NUMPY_OUT, for testdata/check_written.py to load with numpy:
//
//	NPYFLOW_NUMPY_OUT=/tmp/w go test ./npyio -run TestWriteForNumpy
//	/usr/bin/python3 testdata/check_written.py /tmp/w
func TestWriteForNumpy(t *testing.T) {
	dir := os.Getenv("NPYFLOW_NUMPY_OUT")
	if dir == "" {
		t.Skip("NPYFLOW_NUMPY_OUT not set")
	}
	for _, fx := range fixtures.NPYs(t) {
		a, err := npyio.ReadFile(fx.Path, nil)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := npyio.WriteArray(&buf, a); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, fx.Name+".npy"), buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, z := range fixtures.NPZs(t) {
		nz, err := npyio.OpenNPZ(z.Path, nil)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		zw := npyio.NewNPZWriter(&buf, z.Members != nil && len(z.Members) > 0 && z.Members[0].Compressed)
		for _, m := range nz.Members {
			a, err := m.ReadArray()
			if errors.Is(err, npyio.ErrNotNPY) {
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			if err := zw.WriteArray(m.Key, a); err != nil {
				t.Fatal(err)
			}
		}
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
		nz.Close()
		if err := os.WriteFile(filepath.Join(dir, z.Name+".npz"), buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestNPZChecksum corrupts the CRC of a compressed member: reading it to
// the end must fail with the zip checksum error instead of passing silently.
func TestNPZChecksum(t *testing.T) {
	v := make([]int64, 1000)
	for i := range v {
		v[i] = int64(i)
	}
	a := &npyio.Array{Header: &npyio.Header{DType: npyio.Int64Type, Shape: []int{len(v)}}, Data: npyio.AsBytes(v)}
	var buf bytes.Buffer
	if err := npyio.SaveNPZ(&buf, true, nil, npyio.NamedArray{Key: "x", Array: a}); err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()
	cd := bytes.Index(data, []byte("PK\x01\x02"))
	if cd < 0 {
		t.Fatal("no central directory")
	}
	data[cd+16] ^= 0xff // CRC-32 field of the central directory entry
	nz, err := npyio.NewNPZReader(bytes.NewReader(data), int64(len(data)), nil)
	if err != nil {
		t.Fatal(err)
	}
	r, err := nz.Members[0].Open()
	if err != nil {
		t.Fatal(err)
	}
	for err == nil {
		_, err = r.Next(100)
	}
	if err == io.EOF || !strings.Contains(err.Error(), "checksum") {
		t.Fatalf("corrupt CRC: %v, want a checksum error", err)
	}
	if _, err := nz.Members[0].ReadArray(); err == nil || !strings.Contains(err.Error(), "checksum") {
		t.Fatalf("ReadArray with corrupt CRC: %v", err)
	}
}

// TestNPZStoredChecksum flips one data byte of a Stored member: every way
// of reading it (C-order rows, whole array, Fortran-order gathers) must
// report the CRC mismatch, as numpy's zipfile does.
func TestNPZStoredChecksum(t *testing.T) {
	for _, fortran := range []bool{false, true} {
		v := make([]float64, 64)
		for i := range v {
			v[i] = float64(i)
		}
		a := &npyio.Array{Header: &npyio.Header{DType: npyio.Float64Type, Shape: []int{8, 8}, FortranOrder: fortran}, Data: npyio.AsBytes(v)}
		var buf bytes.Buffer
		if err := npyio.SaveNPZ(&buf, false, nil, npyio.NamedArray{Key: "x", Array: a}); err != nil {
			t.Fatal(err)
		}
		good := buf.Bytes()
		open := func(data []byte) *npyio.Member {
			nz, err := npyio.NewNPZReader(bytes.NewReader(data), int64(len(data)), nil)
			if err != nil {
				t.Fatal(err)
			}
			return nz.Members[0]
		}
		readRows := func(m *npyio.Member) error {
			r, err := m.Open()
			if err != nil {
				return err
			}
			for {
				if _, err := r.Next(3); err != nil {
					if err == io.EOF {
						return nil
					}
					return err
				}
			}
		}
		if err := readRows(open(good)); err != nil {
			t.Fatalf("fortran=%v: intact archive: %v", fortran, err)
		}
		bad := append([]byte(nil), good...)
		i := bytes.Index(bad, []byte("\n")) + 20 // a data byte of the member
		bad[i] ^= 1
		if err := readRows(open(bad)); err == nil || !strings.Contains(err.Error(), "checksum") {
			t.Fatalf("fortran=%v: corrupt stored member read as rows: %v", fortran, err)
		}
		if _, err := open(bad).ReadArray(); err == nil || !strings.Contains(err.Error(), "checksum") {
			t.Fatalf("fortran=%v: corrupt stored member read whole: %v", fortran, err)
		}
	}
}

func TestNPZDuplicateNames(t *testing.T) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for i := 0; i < 2; i++ {
		w, _ := zw.Create("a.npy")
		w.Write([]byte("x"))
	}
	zw.Close()
	if _, err := npyio.NewNPZReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()), nil); err == nil || !strings.Contains(err.Error(), "duplicate member") {
		t.Fatalf("duplicate names: %v", err)
	}
}
