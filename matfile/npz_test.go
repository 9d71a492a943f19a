package matfile

import (
	"bytes"
	"io"
	"path/filepath"
	"testing"

	"github.com/npyflow/npyflow/npyio"
)

// TestToNPZ streams every fixture's arrays into an npz (Walk, Var.Open,
// NPZWriter.Create with Var.Header) and reads them back with npyio: the
// headers are valid .npy headers and the data round-trips.
func TestToNPZ(t *testing.T) {
	for _, name := range append(level5Fixtures, v73Fixtures[:2]...) {
		f, err := OpenFile(filepath.Join("testdata", name), nil)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		z := npyio.NewNPZWriter(&buf, false)
		want := map[string][]byte{}
		err = f.Walk(func(path string, v *Var) error {
			w, err := z.Create(path, v.Header)
			if err != nil {
				return err
			}
			rc, err := v.Open()
			if err != nil {
				return err
			}
			defer rc.Close()
			var data bytes.Buffer
			if _, err := io.Copy(io.MultiWriter(w, &data), rc); err != nil {
				return err
			}
			want[path] = data.Bytes()
			return nil
		})
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := z.Close(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		r, err := npyio.NewNPZReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()), nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(r.Keys()) != len(want) {
			t.Errorf("%s: %d members, want %d", name, len(r.Keys()), len(want))
		}
		for key, data := range want {
			a, err := r.Member(key).ReadArray()
			if err != nil {
				t.Fatalf("%s: %s: %v", name, key, err)
			}
			if !a.Header.FortranOrder || !bytes.Equal(a.Data, data) {
				t.Errorf("%s: %s: data differs after the npz round trip", name, key)
			}
		}
	}
}
