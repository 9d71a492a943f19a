package pipeline

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/npyflow/npyflow/internal/storage"
	"github.com/npyflow/npyflow/npyio"
	"github.com/npyflow/npyflow/parquetio"
	"github.com/npyflow/npyflow/pipeline/internal/rowbytes"
	"github.com/npyflow/npyflow/pipeline/job"
	"github.com/npyflow/npyflow/pipeline/shard"
	"github.com/npyflow/npyflow/shardrun"
)

// Parquet datasets: a directory of part files, optionally partitioned
// Hive-style (root/key=value/.../part-<shard>-<seq>.parquet) by the
// values of some columns, which are then not stored in the files. Each
// shard numbers its files itself, so shards never write the same file.
// Files are written to temporary names, staged (hidden) at each
// checkpoint and published only when the run is committed (see commit.go).

// hiveDefaultPartition is the directory value Hive and Spark use for an
// empty or null partition value.
const hiveDefaultPartition = "__HIVE_DEFAULT_PARTITION__"

// hiveEscape escapes a partition key or value as Hive's
// FileUtils.escapePathName does: control characters, '"', '#', '%', '\”,
// '*', '/', ':', '=', '?', '\\', DEL, '{', '[', ']' and '^' become %XX
// (upper-case hex); other bytes, UTF-8 included, are kept.
func hiveEscape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if hiveNeedsEscape(c) {
			fmt.Fprintf(&b, "%%%02X", c)
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

func hiveNeedsEscape(c byte) bool {
	if c < 0x20 || c == 0x7f {
		return true
	}
	return strings.IndexByte("\"#%'*/:=?\\{[]^", c) >= 0
}

// partKey is one partition column.
type partKey struct {
	name string
	off  int
	dt   *npyio.DType
	lane rowbytes.Lane // value's
}

// value formats the column's value in row as a partition directory value
// (unescaped); "" means null (NaT) or empty.
func (k *partKey) value(row []byte) string {
	b := row[k.off : k.off+k.dt.Size]
	switch k.dt.Kind {
	case npyio.Bool:
		if b[0] != 0 {
			return "true"
		}
		return "false"
	case npyio.Int, npyio.Uint:
		if k.lane.Load(k.dt, b, 0, 0, 1) == 'u' {
			return strconv.FormatUint(k.lane.U[0], 10)
		}
		return strconv.FormatInt(k.lane.I[0], 10)
	case npyio.Bytes:
		return rowbytes.BytesString(b)
	case npyio.Unicode:
		return rowbytes.UCS4String(b)
	case npyio.Datetime:
		v := int64(binary.NativeEndian.Uint64(b))
		if v == math.MinInt64 {
			return ""
		}
		return time.Unix(0, 0).UTC().AddDate(0, 0, int(v*k.dt.UnitMult)).Format("2006-01-02")
	}
	return ""
}

func partitionable(dt *npyio.DType) bool {
	switch dt.Kind {
	case npyio.Bool, npyio.Int, npyio.Uint, npyio.Bytes, npyio.Unicode:
		return true
	case npyio.Datetime:
		return dt.Unit == "D" && dt.UnitMult == 1
	}
	return false
}

// datasetSink writes a Parquet dataset.
type datasetSink struct {
	c        *job.Component
	schema   *Schema
	env      *buildEnv
	root     string
	mode     string
	keys     []partKey
	proj     *projection // drops the partition columns; nil without any
	fileH    *npyio.Header
	column   string
	opts     parquetio.Options
	maxRows  int64
	maxBytes int64
	maxOpen  int
	skip     bool // skip_existing and the dataset is committed

	open  map[string]*partFile // by key bytes
	dirs  map[string]string    // key bytes: relative directory
	clock int64

	// Push's reused state: partition numbers by key bytes, each batch's
	// row numbers per partition, and a buffer to gather a partition's rows.
	keyIdx  map[string]int
	keyStr  []string
	groups  [][]int32
	touched []int
	kbuf    []byte
	gather  []byte
	done    []fileRec
	st      SinkStats
}

// partFile is one open part file.
type partFile struct {
	final   string
	cw      *countWriter
	w       *parquetio.Writer
	rows    int64
	flushed int64 // rows in committed row groups
	used    int64
}

type countWriter struct {
	f io.WriteSeeker
	n int64
}

func (w *countWriter) Write(p []byte) (int, error) {
	n, err := w.f.Write(p)
	w.n += int64(n)
	return n, err
}

// fileRec is an output file a sink finished, not yet staged.
type fileRec struct {
	sink, final string
	rows        int64
	last        int // publishing order (shardrun.Output.Last): 0 for data
}

// buildParquetOutput builds a parquet sink: a dataset or a file.
func buildParquetOutput(c *job.Component, in *Schema, env *buildEnv) (node, error) {
	o := job.Options[parquetSinkOpts](c)
	mode := o.Mode
	if !shard.IsDataset(c) {
		for i, set := range []bool{o.MaxRowsPerFile != 0, o.MaxBytesPerFile != 0, o.MaxOpenFiles != nil} {
			if set {
				opt := [...]string{"max_rows_per_file", "max_bytes_per_file", "max_open_files"}[i]
				return nil, c.Errorf(opt, "applies to datasets only: set partition_by or dataset: true")
			}
		}
		if mode == "append" {
			return nil, c.Errorf("mode", "append needs a dataset: set partition_by or dataset: true")
		}
		return buildParquetSink(c, in, env)
	}
	if strings.Contains(o.Path, "{") {
		return nil, c.Errorf("path", "a dataset path is one directory: no placeholders (use partition_by to split the rows)")
	}
	maxOpen := 16 // the option's default
	if o.MaxOpenFiles != nil {
		maxOpen = int(*o.MaxOpenFiles)
	}
	s := &datasetSink{c: c, schema: in, env: env, root: c.ResolvePath(o.Path), mode: mode,
		column: o.Column, maxRows: o.MaxRowsPerFile, maxBytes: o.MaxBytesPerFile,
		maxOpen: maxOpen, open: map[string]*partFile{}, dirs: map[string]string{}, keyIdx: map[string]int{},
		st: SinkStats{Sink: c.Name, Type: c.Type}}
	fileDT, shape := in.DType, in.Shape
	if len(o.PartitionBy) > 0 {
		if err := needRecords(c, in); err != nil {
			return nil, err
		}
		drop := map[int]bool{}
		for i, name := range o.PartitionBy {
			k := rowbytes.FieldIndex(in.DType, name)
			if k < 0 {
				return nil, noField(c, "partition_by", i, name, in.DType)
			}
			if drop[k] {
				return nil, c.ItemErrorf("partition_by", i, "column %q listed twice", name)
			}
			f := in.DType.Fields[k]
			if len(f.Shape) > 0 || !partitionable(f.Type) {
				return nil, c.ItemErrorf("partition_by", i, "cannot partition by %q (%s): use an integer, bool, string or datetime64[D] column", name, f.Type)
			}
			drop[k] = true
			s.keys = append(s.keys, partKey{name: name, off: f.Offset, dt: f.Type})
		}
		var keep []int
		for i := range in.DType.Fields {
			if !drop[i] {
				keep = append(keep, i)
			}
		}
		if len(keep) == 0 {
			return nil, c.Errorf("partition_by", "partitions by every column: no column would be left in the files")
		}
		p, dt, err := newProjection(in.DType, keep)
		if err != nil {
			return nil, c.Errorf("partition_by", "%v", err)
		}
		s.proj, fileDT, shape = p, dt, nil
	}
	s.fileH = &npyio.Header{DType: fileDT, Shape: append([]int{0}, shape...)}
	if _, err := parquetio.NewArraySchema(s.fileH, s.column); err != nil {
		return nil, c.Errorf("input", "cannot write %s to Parquet: %v", in, err)
	}
	if in.RowSize() == 0 {
		return nil, c.Errorf("input", "rows of zero bytes cannot be written to Parquet")
	}
	s.opts = *parquetOptions(c, env)
	rowBytes := int64(fileDT.Size) * max(1, prod(shape))
	if s.opts.RowGroupRows == 0 && len(s.keys) > 0 {
		// Many files may be open at once: keep each one's buffers small.
		s.opts.RowGroupRows = int(max(1, min(parquetio.DefaultRowGroupRows, partitionedGroupBytes/rowBytes)))
		s.opts.Concurrency = 1
	}
	if s.maxRows > 0 && (s.opts.RowGroupRows == 0 || int64(s.opts.RowGroupRows) > s.maxRows) {
		s.opts.RowGroupRows = int(s.maxRows)
	}
	if s.maxBytes > 0 && s.opts.RowGroupRows == 0 {
		// Row groups of about a quarter of the target, so files end near it.
		s.opts.RowGroupRows = int(max(1, min(parquetio.DefaultRowGroupRows, s.maxBytes/4/rowBytes)))
	}
	if err := s.checkExisting(); err != nil {
		return nil, err
	}
	return s, nil
}

// partitionedGroupBytes bounds a row group of a partitioned dataset.
const partitionedGroupBytes = 8 << 20

// checkExisting applies error_if_exists and skip_existing.
func (s *datasetSink) checkExisting() error {
	switch s.mode {
	case "error_if_exists":
		// A listing that fails finds nothing (writing fails later with
		// the store's error), unless planning was cancelled.
		f, _ := shardrun.FirstVisibleFile(s.env.ctx, s.root)
		if err := s.env.ctx.Err(); err != nil {
			return err
		}
		if f != "" {
			return &dataError{pos: s.c.PosOf("mode"), path: s.c.Path() + ".mode", err: fmt.Errorf("dataset %s exists (it holds %s) (mode: error_if_exists)", s.root, f)}
		}
	case "skip_existing":
		if shardrun.Exists(s.env.ctx, shardrun.Join(s.root, shardrun.SuccessFile)) {
			s.skip = true
		}
	}
	return nil
}

func (s *datasetSink) Schema() *Schema   { return s.schema }
func (s *datasetSink) stats() *SinkStats { return &s.st }
func (s *datasetSink) Begin(*Part) error { return nil }
func (s *datasetSink) End(*Part) error   { return nil }

// keyNames returns the partition columns.
func (s *datasetSink) keyNames() []string {
	var n []string
	for _, k := range s.keys {
		n = append(n, k.name)
	}
	return n
}

// filePattern describes the dataset's file names.
func (s *datasetSink) filePattern() string {
	var b strings.Builder
	for _, k := range s.keys {
		b.WriteString(k.name + "=<" + k.name + ">/")
	}
	b.WriteString("part-<shard>-<seq>")
	if s.mode == "append" {
		b.WriteString("-<run>")
	}
	b.WriteString(".parquet")
	return b.String()
}

func (s *datasetSink) plannedPaths([]*Part) ([]string, error) {
	return []string{shardrun.Join(s.root, s.filePattern())}, nil
}

// Push groups the batch's rows by partition (keeping their order within
// each) and appends each group to its partition's open file. A batch of
// one partition (partitions from captured path parts) is written as is.
func (s *datasetSink) Push(b Batch) error {
	if s.skip || b.Rows == 0 {
		return nil
	}
	t := time.Now()
	defer func() { s.st.Elapsed += time.Since(t) }()
	s.st.Rows += int64(b.Rows)
	if len(s.keys) == 0 {
		return s.write("", b)
	}
	rs := int(s.schema.RowSize())
	for _, g := range s.touched {
		s.groups[g] = s.groups[g][:0]
	}
	s.touched = s.touched[:0]
	for r := 0; r < b.Rows; r++ {
		row := b.Data[r*rs : (r+1)*rs]
		s.kbuf = s.kbuf[:0]
		for i := range s.keys {
			k := &s.keys[i]
			s.kbuf = append(s.kbuf, row[k.off:k.off+k.dt.Size]...)
		}
		g, ok := s.keyIdx[string(s.kbuf)] // no allocation for the lookup
		if !ok {
			g = len(s.keyStr)
			s.keyStr = append(s.keyStr, string(s.kbuf))
			s.keyIdx[s.keyStr[g]] = g
			s.groups = append(s.groups, nil)
		}
		if len(s.groups[g]) == 0 {
			s.touched = append(s.touched, g)
		}
		s.groups[g] = append(s.groups[g], int32(r))
	}
	if len(s.touched) == 1 {
		return s.write(s.keyStr[s.touched[0]], b)
	}
	for _, g := range s.touched {
		rows := s.groups[g]
		need := len(rows) * rs
		if cap(s.gather) < need {
			s.gather = make([]byte, need)
		}
		buf := s.gather[:need]
		for i, r := range rows {
			copy(buf[i*rs:(i+1)*rs], b.Data[int(r)*rs:(int(r)+1)*rs])
		}
		if err := s.write(s.keyStr[g], Batch{Rows: len(rows), Data: buf}); err != nil {
			return err
		}
	}
	return nil
}

// write appends rows of one partition, rolling over to a new file at the
// row and byte targets.
func (s *datasetSink) write(key string, b Batch) error {
	rs := int(s.schema.RowSize())
	for b.Rows > 0 {
		pf, err := s.fileFor(key, b.Data[:rs])
		if err != nil {
			return err
		}
		n := b.Rows
		if s.maxRows > 0 {
			n = int(min(int64(n), s.maxRows-pf.rows))
		}
		if s.maxBytes > 0 {
			room := float64(s.maxBytes-pf.estimate(s.fileH.RowSize())) / pf.perRow(s.fileH.RowSize())
			n = int(max(1, min(float64(n), math.Ceil(room))))
		}
		chunk := Batch{Rows: n, Data: b.Data[:n*rs]}
		if s.proj != nil {
			if chunk, err = s.proj.apply(chunk); err != nil {
				return err
			}
		}
		if _, err := pf.w.Write(chunk.Data); err != nil {
			return fmt.Errorf("%s: %w", pf.final, err)
		}
		pf.rows += int64(n)
		b = Batch{Rows: b.Rows - n, Data: b.Data[n*rs:]}
		if (s.maxRows > 0 && pf.rows >= s.maxRows) || (s.maxBytes > 0 && pf.estimate(s.fileH.RowSize()) >= s.maxBytes) {
			if err := s.closeFile(key); err != nil {
				return err
			}
		}
	}
	return nil
}

// estimate is the file's expected size: its rows at the numpy row size
// until the Parquet writer has put out its first MiB (it buffers that
// much), then at the bytes per row it has put out so far.
func (pf *partFile) estimate(rowSize int64) int64 {
	return int64(float64(pf.rows) * pf.perRow(rowSize))
}

func (pf *partFile) perRow(rowSize int64) float64 {
	if pf.flushed > 0 && pf.cw.n >= 1<<20 {
		return float64(pf.cw.n) / float64(pf.flushed)
	}
	return float64(max(rowSize, 1))
}

// fileFor returns the open file of a partition, opening one (and closing
// the least recently used if too many are open).
func (s *datasetSink) fileFor(key string, row []byte) (*partFile, error) {
	s.clock++
	if pf := s.open[key]; pf != nil {
		pf.used = s.clock
		return pf, nil
	}
	if s.maxOpen > 0 && len(s.open) >= s.maxOpen {
		lru, oldest := "", int64(math.MaxInt64)
		for k, pf := range s.open {
			if pf.used < oldest {
				lru, oldest = k, pf.used
			}
		}
		if err := s.closeFile(lru); err != nil {
			return nil, err
		}
	}
	dir, ok := s.dirs[key]
	if !ok {
		var parts []string
		for i := range s.keys {
			k := &s.keys[i]
			v := k.value(row)
			if v == "" {
				v = hiveDefaultPartition
			} else {
				v = hiveEscape(v)
			}
			parts = append(parts, hiveEscape(k.name)+"="+v)
		}
		dir = filepath.Join(parts...)
		s.dirs[key] = dir
	}
	d := s.env.dist
	if d == nil {
		return nil, errors.New("pipeline: a dataset sink runs only in a sharded run")
	}
	name := fmt.Sprintf("part-%05d-%05d", d.shard.Index, d.nextSeq())
	if s.mode == "append" {
		name += "-" + d.runID[:12]
	}
	final := shardrun.Join(s.root, dir, name+".parquet")
	f, err := s.env.create(final, false)
	if err != nil {
		return nil, err
	}
	sc, err := parquetio.NewArraySchema(s.fileH, s.column)
	if err != nil {
		return nil, err
	}
	pf := &partFile{final: final, cw: &countWriter{f: f}, used: s.clock}
	w, err := parquetio.NewWriter(pf.cw, sc, &s.opts)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", final, err)
	}
	w.OnRowGroup(func(rows int64) { pf.flushed = rows })
	pf.w = w
	s.open[key] = pf
	return pf, nil
}

// closeFile finishes a partition's open file.
func (s *datasetSink) closeFile(key string) error {
	pf := s.open[key]
	delete(s.open, key)
	if err := pf.w.Close(); err != nil {
		return fmt.Errorf("%s: %w", pf.final, err)
	}
	s.st.Files = append(s.st.Files, pf.final)
	s.st.Bytes += pf.cw.n
	if err := s.env.finished(pf.cw.f); err != nil {
		return fmt.Errorf("%s: %w", storage.Redact(pf.final), err)
	}
	s.done = append(s.done, fileRec{sink: s.c.Name, final: pf.final, rows: pf.rows})
	return nil
}

func (s *datasetSink) closeAll() error {
	keys := make([]string, 0, len(s.open))
	for key := range s.open {
		keys = append(keys, key)
	}
	sort.Strings(keys)
	for _, key := range keys {
		if err := s.closeFile(key); err != nil {
			return err
		}
	}
	return nil
}

func (s *datasetSink) Finish() error { return s.closeAll() }

// busy: a dataset closes its files at any input boundary.
func (s *datasetSink) busy() bool { return false }

func (s *datasetSink) flush() ([]fileRec, error) {
	if err := s.closeAll(); err != nil {
		return nil, err
	}
	d := s.done
	s.done = nil
	sort.Slice(d, func(i, j int) bool { return d[i].final < d[j].final })
	return d, nil
}
