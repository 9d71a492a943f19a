package parquetio

import (
	"bytes"
	"context"
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
