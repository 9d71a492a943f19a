package pipeline

import (
	"fmt"
	"io"

	"github.com/npyflow/npyflow/npyio"
	"github.com/npyflow/npyflow/parquetio"
	"github.com/npyflow/npyflow/pipeline/job"
)

// The Parquet sink and source, on parquetio.

func buildParquetSink(c *job.Component, in *Schema, env *buildEnv) (node, error) {
	s, err := newFileSink(c, in, env)
	if err != nil {
		return nil, err
	}
	h := &npyio.Header{DType: in.DType, Shape: append([]int{0}, in.Shape...)}
	// Check the mapping now, so plan reports an unsupported dtype.
	if _, err := parquetio.NewArraySchema(h, c.String("column")); err != nil {
		return nil, c.Errorf("input", "cannot write %s to Parquet: %v", in, err)
	}
	if in.RowSize() == 0 {
		return nil, c.Errorf("input", "rows of zero bytes cannot be written to Parquet")
	}
	opts := parquetOptions(c)
	s.open = func(f io.WriteSeeker) (batchWriter, error) {
		sc, err := parquetio.NewArraySchema(h, c.String("column"))
		if err != nil {
			return nil, err
		}
		w, err := parquetio.NewWriter(f, sc, opts)
		if err != nil {
			return nil, err
		}
		return &parquetWriter{w: w}, nil
	}
	return s, nil
}

// parquetOptions are the writer options of a parquet sink (parquetFields).
func parquetOptions(c *job.Component) *parquetio.Options {
	return &parquetio.Options{
		Compression:   c.String("compression"),
		RowGroupRows:  int(c.Int("row_group_rows")),
		PageSize:      int(c.Int("page_size")),
		TimestampUnit: c.String("timestamp_unit"),
		Dictionary:    c.Strings("dictionary"),
		BloomFilters:  c.Strings("bloom_filters"),
		Concurrency:   int(c.Int("concurrency")),
	}
}

type parquetWriter struct{ w *parquetio.Writer }

func (w *parquetWriter) Write(b Batch) error {
	_, err := w.w.Write(b.Data)
	return err
}

func (w *parquetWriter) Close() error { return w.w.Close() }

func readParquetHeader(path string, fo *foreignOptions) (*npyio.Header, error) {
	f, err := openFile(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r, err := parquetio.NewReaderOptions(f, f.Size(), fo.parquet())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return r.Header(), nil
}

// parquetColumnNames returns the top-level column names of a Parquet file.
func parquetColumnNames(path string) ([]string, error) {
	f, err := openFile(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	names, err := parquetio.ColumnNames(f, f.Size())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return names, nil
}

func (s *fileSource) openParquet(p *Part) (partReader, error) {
	f, err := openFile(p.Path)
	if err != nil {
		return nil, err
	}
	r, err := parquetio.NewReaderOptions(f, f.Size(), s.foreign().parquet())
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", p.Path, err)
	}
	h := s.wrapProjected(r.Header())
	got := &Schema{DType: h.DType.Native(), Shape: h.Shape[min(1, len(h.Shape)):]}
	if w, ok := widerStrings(s.file, got); !ok || !w.Equal(s.file) {
		f.Close()
		return nil, fmt.Errorf("%s: changed since planning: now holds %s, not %s", p.Path, got, s.file)
	}
	pr := &npyPartReader{rd: &parquetRows{r: r, rowSize: int(s.file.RowSize()), widen: newRepacker(got, s.file)}, closer: f, name: p.Path}
	if err := s.withCaptures(pr, p); err != nil {
		f.Close()
		return nil, err
	}
	return pr, nil
}

// parquetRows adapts a parquetio.Reader to ReadRows.
type parquetRows struct {
	r       *parquetio.Reader
	rowSize int
	widen   *repacker // the file's strings are narrower than the source's
}

func (p *parquetRows) ReadRows(dst []byte) (int, error) {
	if p.rowSize == 0 {
		return 0, fmt.Errorf("rows of zero bytes")
	}
	n := len(dst) / p.rowSize
	if n == 0 {
		return 0, io.ErrShortBuffer
	}
	b, err := p.r.Next(n)
	if err != nil {
		return 0, err
	}
	if p.widen != nil {
		p.widen.rows(dst, b.Data, b.Rows)
		return b.Rows, nil
	}
	copy(dst, b.Data)
	return b.Rows, nil
}
