package parquetio

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/npyflow/npyflow/internal/fixtures"
	"github.com/npyflow/npyflow/npyio"
)

func TestSmoke(t *testing.T) {
	for _, f := range fixtures.NPYs(t) {
		if f.Name != os.Getenv("FX") && os.Getenv("FX") != "all" {
			continue
		}
		open := func() ([]*npyio.Reader, error) {
			fh, err := os.Open(f.Path)
			if err != nil {
				return nil, err
			}
			st, _ := fh.Stat()
			r, err := npyio.NewReaderAt(fh, st.Size(), nil)
			return []*npyio.Reader{r}, err
		}
		var buf bytes.Buffer
		n, err := WriteArray(&buf, open, "a", nil, nil)
		if err != nil {
			t.Errorf("%s: %v", f.Name, err)
			continue
		}
		pf, err := file.NewParquetReader(bytes.NewReader(buf.Bytes()))
		if err != nil {
			t.Errorf("%s: %v", f.Name, err)
			continue
		}
		fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
		if err != nil {
			t.Errorf("%s: %v", f.Name, err)
			continue
		}
		tbl, err := fr.ReadTable(context.Background())
		if err != nil {
			t.Errorf("%s: %v", f.Name, err)
			continue
		}
		if os.Getenv("FX") != "all" {
			t.Logf("%s rows %d\n%s", f.Name, n, tbl.Schema())
			for i := 0; i < int(tbl.NumCols()); i++ {
				t.Logf("%v", tbl.Column(i).Data().Chunks())
			}
		}
		tbl.Release()
	}
}

func TestSmokeRoundTrip(t *testing.T) {
	for _, f := range fixtures.NPYs(t) {
		if f.Name == "growth" {
			continue
		}
		open := func() ([]*npyio.Reader, error) {
			fh, err := os.Open(f.Path)
			if err != nil {
				return nil, err
			}
			st, _ := fh.Stat()
			r, err := npyio.NewReaderAt(fh, st.Size(), nil)
			return []*npyio.Reader{r}, err
		}
		var buf bytes.Buffer
		if _, err := WriteArray(&buf, open, "a", &Options{RowGroupRows: 2}, nil); err != nil {
			t.Errorf("%s: %v", f.Name, err)
			continue
		}
		rd, err := NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
		if err != nil {
			t.Errorf("%s: %v", f.Name, err)
			continue
		}
		a, err := npyio.ReadFile(f.Path, &npyio.Options{MaxHeaderSize: 1 << 24})
		if err != nil {
			t.Fatal(err)
		}
		h := rd.Header()
		if h.DType.String() != a.Header.DType.String() || fmt.Sprint(h.Shape) != fmt.Sprint(a.Header.Shape) || h.FortranOrder != a.Header.FortranOrder {
			t.Errorf("%s: header %s %v %v, want %s %v %v", f.Name, h.DType, h.Shape, h.FortranOrder, a.Header.DType, a.Header.Shape, a.Header.FortranOrder)
		}
		var got []byte
		for {
			b, err := rd.Next(3)
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Errorf("%s: %v", f.Name, err)
				break
			}
			got = append(got, b.Data...)
		}
		if !bytes.Equal(got, a.CData()) {
			t.Errorf("%s: data differs\n got %x\nwant %x", f.Name, got, a.CData())
		}
	}
}
