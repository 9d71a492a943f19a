package hdf5

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/npyflow/npyflow/internal/fixtures"
	"github.com/npyflow/npyflow/npyio"
)

// TestReadH5pyTimesStrings reads what h5py writes for numpy datetimes
// (opaque types tagged NUMPY:<dtype>) and text (fixed-length and
// variable-length UTF-8 strings) as the numpy types h5py gives back:
// testdata/h5py_types.h5 and its expectations h5py_types.json come from
// testdata/gen_h5py_types.py.
func TestReadH5pyTimesStrings(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "h5py_types.json"))
	if err != nil {
		t.Fatal(err)
	}
	var want map[string]struct {
		Descr  string            `json:"descr"`
		Shape  []int             `json:"shape"`
		Values []json.RawMessage `json:"values"`
	}
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	f, err := OpenFile(filepath.Join("testdata", "h5py_types.h5"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	names := make([]string, 0, len(want))
	for n := range want {
		names = append(names, n)
	}
	sort.Strings(names)
	if len(names) < 15 {
		t.Fatalf("%d datasets in the expectations", len(names))
	}
	for _, name := range names {
		w := want[name]
		o, err := f.OpenPath("/" + name)
		if err != nil {
			t.Fatal(err)
		}
		ds := o.(*Dataset)
		dt, err := ds.DType()
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		wdt, err := npyio.ParseDescr(w.Descr)
		if err != nil {
			t.Fatal(err)
		}
		if !dt.Equal(wdt) {
			t.Errorf("%s: dtype %s, h5py gives %s", name, dt, wdt)
			continue
		}
		shape, err := ds.NumpyShape()
		if err != nil {
			t.Fatal(err)
		}
		if npyio.FormatShape(shape) != npyio.FormatShape(w.Shape) {
			t.Errorf("%s: shape %v, want %v", name, shape, w.Shape)
		}
		data, err := ds.ReadAll()
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		hb, err := npyio.EncodeHeader(&npyio.Header{DType: dt, Shape: shape})
		if err != nil {
			t.Fatal(err)
		}
		a, err := npyio.ReadArray(io.MultiReader(bytes.NewReader(hb), bytes.NewReader(data)), nil)
		if err != nil {
			t.Fatal(err)
		}
		if int(a.Header.Count()) != len(w.Values) {
			t.Fatalf("%s: %d values, want %d", name, a.Header.Count(), len(w.Values))
		}
		for i, v := range w.Values {
			if err := fixtures.CheckElement(a.DType, a.Data[i*a.DType.Size:(i+1)*a.DType.Size], v); err != nil {
				t.Errorf("%s: element %d: %v", name, i, err)
				break
			}
		}
	}
}

// TestReadH5pyUTF8Members: fixed-length UTF-8 members of h5py's records
// read as U by every path (ReadAll, row batches, boxes, element
// batches) alike, ASCII members as S; invalid UTF-8 in a member is one
// error naming the dataset and the field.
func TestReadH5pyUTF8Members(t *testing.T) {
	f, err := OpenFile(filepath.Join("testdata", "h5py_types.h5"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	o, err := f.OpenPath("/rec_utf8_chunked")
	if err != nil {
		t.Fatal(err)
	}
	ds := o.(*Dataset)
	dt, err := ds.DType()
	if err != nil {
		t.Fatal(err)
	}
	// id i4, text U12, code S3, inner (name U6, v >i2), tags 2 x U4
	if want := 4 + 48 + 3 + 24 + 2 + 32; dt.Size != want {
		t.Fatalf("dtype %s of %d bytes, want %d", dt, dt.Size, want)
	}
	if k := dt.Fields[2].Type.Kind; k != npyio.Bytes {
		t.Errorf("ASCII member read as %s, want S", k)
	}
	all, err := ds.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	// row 3 of the record: text "😀x"
	row := all[3*dt.Size:]
	if c := binary.LittleEndian.Uint32(row[4:]); c != 0x1F600 {
		t.Errorf("text[3] starts with U+%04X, want U+1F600", c)
	}
	r, err := ds.NewRowReader(3)
	if err != nil {
		t.Fatal(err)
	}
	var rows []byte
	for {
		b, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		rows = append(rows, b...)
	}
	if !bytes.Equal(rows, all) {
		t.Error("row batches differ from ReadAll")
	}
	box := make([]byte, 20*dt.Size)
	if err := ds.ReadSlab([]uint64{13}, []uint64{33}, box); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(box, all[13*dt.Size:33*dt.Size]) {
		t.Error("box [13, 33) differs from ReadAll")
	}
	er, err := ds.NewElementReader(5 * dt.Size)
	if err != nil {
		t.Fatal(err)
	}
	var els []byte
	for {
		b, err := er.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		els = append(els, b...)
	}
	if !bytes.Equal(els, all) {
		t.Error("element batches differ from ReadAll")
	}

	o, err = f.OpenPath("/bad_utf8_rec")
	if err != nil {
		t.Fatal(err)
	}
	_, err = o.(*Dataset).ReadAll()
	if err == nil || !strings.Contains(err.Error(), `/bad_utf8_rec: field "s"`) || !strings.Contains(err.Error(), "invalid UTF-8") || strings.Contains(err.Error(), "\n") {
		t.Errorf("invalid UTF-8 member: %v", err)
	}
}
