package npyio

import (
	"bytes"
	"errors"
	"io"
	"testing"
)

// TestNextPart: an array read in parts of any size, from a stream and
// through ReadAt, gives the bytes Next gives (byte order fixed, bools
// normalized), counts rows as they complete, and refuses Next inside a
// row.
func TestNextPart(t *testing.T) {
	for _, c := range []struct {
		descr string
		shape []int
	}{{"'>f8'", []int{1, 37}}, {"'|b1'", []int{2, 50}}, {"'<i4'", []int{3, 4, 5}},
		{"[('a', '>i2'), ('b', '<f4')]", []int{1, 9}}, {"'<f8'", []int{0, 4}}} {
		dt, err := ParseDescr(c.descr)
		if err != nil {
			t.Fatal(err)
		}
		h := &Header{DType: dt, Shape: c.shape}
		raw := make([]byte, h.DataSize())
		for i := range raw {
			raw[i] = byte(i*13 + 1)
		}
		var file bytes.Buffer
		w, err := NewWriter(&file, h)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(raw); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		ref, err := NewReader(bytes.NewReader(file.Bytes()), nil)
		if err != nil {
			t.Fatal(err)
		}
		var want []byte
		for {
			b, err := ref.Next(1000)
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			want = append(want, b.Data...)
		}
		for _, part := range []int{1, 7, dt.Size, 3*dt.Size + 1, 1 << 20} {
			for _, at := range []bool{false, true} {
				var r *Reader
				if at {
					r, err = NewReaderAt(bytes.NewReader(file.Bytes()), int64(file.Len()), nil)
				} else {
					r, err = NewReader(bytes.NewReader(file.Bytes()), nil)
				}
				if err != nil {
					t.Fatal(err)
				}
				var got []byte
				for {
					b, err := r.NextPart(part)
					if err == io.EOF {
						break
					}
					if err != nil {
						t.Fatalf("%s part %d: %v", c.descr, part, err)
					}
					if len(b) == 0 || len(b)%dt.Size != 0 || len(b) > max(part, dt.Size) {
						t.Fatalf("%s part %d: a part of %d bytes", c.descr, part, len(b))
					}
					done := int64(len(got)+len(b)) / max(r.RowSize(), 1)
					if r.Rows()-r.Remaining() != done {
						t.Fatalf("%s part %d: %d rows counted after %d bytes", c.descr, part, r.Rows()-r.Remaining(), len(got)+len(b))
					}
					got = append(got, b...)
				}
				if !bytes.Equal(got, want) {
					t.Errorf("%s part %d ReaderAt %v: bytes differ from Next's", c.descr, part, at)
				}
			}
		}
		if h.DataSize() > int64(dt.Size) && h.RowSize() > int64(dt.Size) {
			r, err := NewReader(bytes.NewReader(file.Bytes()), nil)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := r.NextPart(dt.Size); err != nil {
				t.Fatal(err)
			}
			if _, err := r.Next(1); !errors.Is(err, ErrPartialRow) {
				t.Errorf("%s: Next inside a row: %v", c.descr, err)
			}
		}
		// Truncated data is an error, not a short part.
		cut := file.Bytes()[:file.Len()-1]
		if h.DataSize() > 0 {
			r, err := NewReader(bytes.NewReader(cut), nil)
			if err != nil {
				t.Fatal(err)
			}
			var terr error
			for terr == nil {
				_, terr = r.NextPart(5)
			}
			var te *TruncatedError
			if !errors.As(terr, &te) {
				t.Errorf("%s: truncated: %v", c.descr, terr)
			}
		}
	}
}
