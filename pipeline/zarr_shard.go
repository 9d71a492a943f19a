package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strings"
	"sync"

	"github.com/npyflow/npyflow/internal/storage"
	"github.com/npyflow/npyflow/npyio"
	"github.com/npyflow/npyflow/shardrun"
	"github.com/npyflow/npyflow/zarr"
)

// Zarr stores written by the tasks of a sharded run. The plan knows
// every input part and its rows, so every task computes the same layout:
// which store and array each part goes to and at which row. A task
// writes the chunks of its own parts' rows (zarr.CreateRegion), each
// chunk a staged output of the run; the task that has a store's first
// part also stages the store's metadata (the arrays' zarr.json or
// .zarray, the group's and the consolidated metadata), marked to be
// published last (shardrun.Output.Last). Nothing is visible until the
// run is committed: a task that fails leaves no metadata at the output,
// and the commit publishes every chunk before any metadata. Every part
// must start on a chunk (shard) boundary of its array, so that no two
// tasks write the same chunk; the tasks check it before anything is
// written.
//
// Limits: the rows of each part must be known before the run (no filter
// or other transform that changes them), split_fields is refused, and a
// store written over an older one keeps the older chunks the new one does
// not write (an empty shard of the new array is not stored).

// zarrSink is the zarr (directory) sink: a memberSink, and in a sharded
// run the writer of its task's chunks.
type zarrSink struct {
	*memberSink
	opts         zarr.CreateOptions
	consolidated bool
	parts        []*Part // every part reaching the sink, in plan order

	lay     *zarrLayout
	aligned bool        // lay was checked for several tasks
	cur     *zarrRegion // the region being written
	mu      sync.Mutex  // guards done (stores put from several goroutines)
	done    []fileRec   // staged outputs, for the next checkpoint
}

// zarrLayout is where every part of a sharded run's zarr sink goes.
type zarrLayout struct {
	stores []*zarrOut
	at     map[*Part]zarrPartAt
}

// zarrOut is one output store and its arrays, in order.
type zarrOut struct {
	path   string
	first  *Part
	arrays []*zarrArr
}

// zarrArr is one array of a store: its options (shape, chunks) and the
// parts that fill it.
type zarrArr struct {
	name  string
	opts  zarr.CreateOptions
	parts []*Part
}

// zarrPartAt is where a part goes: its store, array and first row.
type zarrPartAt struct {
	out *zarrOut
	arr *zarrArr
	row int64
}

// zarrRegion is the region writer of one array's rows, open across the
// consecutive parts of a task.
type zarrRegion struct {
	arr  *zarrArr
	w    *zarr.ArrayWriter
	end  int64 // the row after the last written
	last int64 // the row after the region
	// unregister removes w's abort hook (outputs.onAbort) once closed.
	unregister func()
}

// zarrAligned reports whether row is on a chunk (shard) boundary of the
// array o, or at its end.
func zarrAligned(o zarr.CreateOptions, row int64) bool {
	if len(o.Shape) == 0 {
		return true
	}
	unit := o.Chunks[0]
	if o.Shards != nil {
		unit = o.Shards[0]
	}
	return row%unit == 0 || row == o.Shape[0]
}

var (
	_ sharedSink  = (*zarrSink)(nil)
	_ partsKeeper = (*zarrSink)(nil)
	_ zarr.Store  = (*stagedZarr)(nil)
)

func (s *zarrSink) knowParts(parts []*Part, f sinkFeed) {
	s.memberSink.knowParts(parts, f)
	s.parts = parts
}

// layout computes (once) where every part goes, and checks that tasks
// write disjoint chunks: with tasks > 1, every part starts on a chunk
// boundary.
func (s *zarrSink) layout(tasks int) (*zarrLayout, error) {
	if s.lay == nil {
		lay, err := s.newLayout()
		if err != nil {
			return nil, err
		}
		s.lay = lay
	}
	if tasks > 1 && !s.aligned {
		for _, out := range s.lay.stores {
			for _, arr := range out.arrays {
				if err := s.checkAligned(out, arr, s.lay); err != nil {
					return nil, err
				}
			}
		}
		s.aligned = true
	}
	return s.lay, nil
}

// newLayout computes where every part goes.
func (s *zarrSink) newLayout() (*zarrLayout, error) {
	if s.split {
		return nil, s.c.Errorf("split_fields", "a sharded run cannot split records into arrays yet: run it as one task")
	}
	if !s.known {
		return nil, fmt.Errorf("%s: a sharded run writes a Zarr store at rows known before the run, but the rows reaching this sink are not (a transform changes them): run it as one task", s.c.Path())
	}
	lay := &zarrLayout{at: map[*Part]zarrPartAt{}}
	byPath := map[string]*zarrOut{}
	for _, p := range s.parts {
		paths, err := s.fileSink.plannedPaths([]*Part{p})
		if err != nil {
			return nil, err
		}
		out := byPath[paths[0]]
		if out == nil {
			out = &zarrOut{path: paths[0], first: p}
			byPath[out.path] = out
			lay.stores = append(lay.stores, out)
		}
		name, err := s.arrayName(p.Vars)
		if err != nil {
			return nil, err
		}
		var arr *zarrArr
		if n := len(out.arrays); n > 0 && out.arrays[n-1].name == name {
			arr = out.arrays[n-1]
		}
		if arr == nil {
			for _, a := range out.arrays {
				if a.name == name {
					return nil, fmt.Errorf("%s: %s %q written twice", s.c.Path(), s.field, name)
				}
			}
			arr = &zarrArr{name: name}
			out.arrays = append(out.arrays, arr)
		}
		var row int64
		for _, q := range arr.parts {
			row += q.Rows
		}
		arr.parts = append(arr.parts, p)
		lay.at[p] = zarrPartAt{out: out, arr: arr, row: row}
	}
	for _, out := range lay.stores {
		for _, arr := range out.arrays {
			if err := s.arrayOptions(arr); err != nil {
				return nil, fmt.Errorf("%s: %w", storage.Redact(out.path), err)
			}
		}
	}
	return lay, nil
}

// arrayOptions sets the options of arr: its header as a single run's
// memberWriter makes it, and its chunks (the default made explicit).
func (s *zarrSink) arrayOptions(arr *zarrArr) error {
	first := arr.parts[0]
	var rows int64
	zeroD := true
	for _, p := range arr.parts {
		rows += p.Rows
		zeroD = zeroD && p.zeroD
	}
	sc := partSchema(s.schema, first)
	h := &npyio.Header{DType: storedDType(s.schema, first, s.stored && s.onePerArray()), Shape: append([]int{int(rows)}, sc.Shape...)}
	if s.zeroD && len(arr.parts) == 1 && zeroD && rows == 1 && len(sc.Shape) == 0 {
		h.Shape = []int{}
	}
	o, err := zarrArrayOptions(arr.name, h, s.opts)
	if err != nil {
		return err
	}
	if o.Chunks == nil {
		o.Chunks = zarr.DefaultChunks(o.Shape, o.DType.ItemSize())
	}
	arr.opts = o
	return nil
}

// checkAligned reports a part of arr that does not start on a chunk
// (shard) boundary, saying which chunk rows would fit every part.
func (s *zarrSink) checkAligned(out *zarrOut, arr *zarrArr, lay *zarrLayout) error {
	if len(arr.opts.Shape) == 0 {
		return nil
	}
	unit, what, opt := arr.opts.Chunks[0], "chunk", "chunks"
	if arr.opts.Shards != nil {
		unit, what, opt = arr.opts.Shards[0], "shard", "shards"
	}
	var g int64
	var bad *Part
	for _, p := range arr.parts {
		row := lay.at[p].row
		g = gcd(g, row)
		if row%unit != 0 && bad == nil {
			bad = p
		}
	}
	if bad == nil {
		return nil
	}
	fit := ""
	if d := largestDivisor(g, unit); d > 0 {
		fit = fmt.Sprintf(" %s of %d rows (or a divisor of %d) would fit every input;", opt, d, g)
	}
	return fmt.Errorf("%s: array %s of %s: input %s starts at row %d, inside a %s of %d rows: the tasks of a sharded run write whole %ss, so every input must start on a %s boundary;%s or run it as one task",
		s.c.Path(), arr.name, storage.Redact(out.path), partName(bad), lay.at[bad].row, what, unit, what, what, fit)
}

func gcd(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// largestDivisor is the largest divisor of n not above limit (0 if n is 0).
func largestDivisor(n, limit int64) int64 {
	if n <= limit {
		return n
	}
	best := int64(0)
	for d := int64(1); d*d <= n; d++ {
		if n%d == 0 {
			if d <= limit {
				best = max(best, d)
			}
			if n/d <= limit {
				best = max(best, n/d)
			}
		}
	}
	return best
}

// checkShards is called by checkShardable: the sink may be shared by
// tasks whose inputs fall on chunk boundaries.
func (s *zarrSink) checkShards(tasks int) error {
	_, err := s.layout(tasks)
	return err
}

func (s *zarrSink) sharded() bool { return s.env.dist != nil }

func (s *zarrSink) Begin(p *Part) error {
	if !s.sharded() {
		return s.memberSink.Begin(p)
	}
	lay, err := s.layout(s.env.dist.shard.Count)
	if err != nil {
		return err
	}
	at, ok := lay.at[p]
	if !ok {
		return fmt.Errorf("%s: input %s is not in the plan", s.c.Path(), partName(p))
	}
	if sinkMode(s.c) == "error_if_exists" && at.out.first == p {
		if _, err := storage.Stat(s.env.ctx, at.out.path); err == nil {
			return fmt.Errorf("%s: %s exists (mode: error_if_exists)", s.c.Path(), storage.Redact(at.out.path))
		}
	}
	if s.cur != nil && (s.cur.arr != at.arr || s.cur.end != at.row) {
		if err := s.closeRegion(); err != nil {
			return err
		}
	}
	if s.cur == nil {
		// The region: this part, and the parts right after it that this
		// task reads too, up to the first that ends on a chunk boundary.
		last := at.row
		o := at.arr.opts
		for _, q := range at.arr.parts {
			qa := lay.at[q]
			if qa.row < at.row {
				continue
			}
			if qa.row != last || !s.env.dist.include[q] || (last > at.row && zarrAligned(o, last)) {
				break
			}
			last += q.Rows
		}
		if len(o.Shape) == 0 {
			last = 1
		}
		st := &stagedZarr{s: s, root: at.out.path}
		w, err := zarr.CreateRegion(s.env.ctx, st, at.arr.name, at.arr.opts, at.row, last)
		if err != nil {
			return fmt.Errorf("%s: %w", storage.Redact(at.out.path), err)
		}
		s.cur = &zarrRegion{arr: at.arr, w: w, end: at.row, last: last, unregister: s.env.out.onAbort(w.Abort)}
		s.curP = at.out.path
	}
	return nil
}

func (s *zarrSink) Push(b Batch) error {
	if !s.sharded() {
		return s.memberSink.Push(b)
	}
	if s.cur == nil {
		return fmt.Errorf("%s: rows outside an input", s.c.Path())
	}
	s.st.Rows += int64(b.Rows)
	if len(s.cur.arr.opts.Shape) > 0 {
		s.cur.end += int64(b.Rows)
	} else {
		s.cur.end = 1
	}
	if err := s.cur.w.WriteRows(s.env.ctx, b.Data); err != nil {
		return fmt.Errorf("%s: %w", storage.Redact(s.curP), err)
	}
	return nil
}

func (s *zarrSink) End(p *Part) error {
	if !s.sharded() {
		return s.memberSink.End(p)
	}
	if s.cur != nil && s.cur.end == s.cur.last {
		// Every chunk of the region is written: a checkpoint may stage them.
		return s.closeRegion()
	}
	return nil
}

// closeRegion writes the rest of the open region.
func (s *zarrSink) closeRegion() error {
	r := s.cur
	s.cur = nil
	defer r.unregister()
	if err := r.w.Close(s.env.ctx); err != nil {
		return fmt.Errorf("%s: %w", storage.Redact(s.curP), err)
	}
	return nil
}

func (s *zarrSink) Finish() error {
	if !s.sharded() {
		return s.memberSink.Finish()
	}
	if s.cur != nil {
		if err := s.closeRegion(); err != nil {
			return err
		}
	}
	lay, err := s.layout(s.env.dist.shard.Count)
	if err != nil {
		return err
	}
	for _, out := range lay.stores {
		if s.env.dist.mine[out.first] {
			if err := s.writeMetadata(out); err != nil {
				return err
			}
		}
	}
	return nil
}

// writeMetadata stages the metadata of store out: its arrays', then its
// group's, each to be published after the chunks.
func (s *zarrSink) writeMetadata(out *zarrOut) error {
	ctx := s.env.ctx
	st := &stagedZarr{s: s, root: out.path, meta: true, rows: map[string]int64{}}
	g := zarr.CreateGroup(st, "", s.opts.Format, s.consolidated, nil)
	doc := ".zarray"
	if s.opts.Format == 3 {
		doc = "zarr.json"
	}
	for _, arr := range out.arrays {
		for _, p := range arr.parts {
			st.rows[strings.Trim(arr.name, "/")+"/"+doc] += p.Rows
		}
		w, err := g.CreateArray(ctx, arr.name, arr.opts)
		if err == nil {
			err = w.Close(ctx) // no rows: the metadata alone
		}
		if err != nil {
			return fmt.Errorf("%s: %w", storage.Redact(out.path), err)
		}
	}
	if err := g.Close(ctx); err != nil {
		return fmt.Errorf("%s: %w", storage.Redact(out.path), err)
	}
	s.st.Files = append(s.st.Files, out.path)
	return nil
}

// busy: a region is open (its last chunk may still be buffered).
func (s *zarrSink) busy() bool { return s.cur != nil }

func (s *zarrSink) flush() ([]fileRec, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d := s.done
	s.done = nil
	sort.Slice(d, func(i, j int) bool { return d[i].final < d[j].final })
	return d, nil
}

// stagedZarr is a write-only zarr.Store whose every key is a staged
// output of the sharded run, under the store's final path.
type stagedZarr struct {
	s    *zarrSink
	root string
	meta bool             // the documents are metadata, published last
	rows map[string]int64 // the rows of the arrays, by their document's key
}

var errWriteOnly = errors.New("a sharded run's Zarr output is write-only until committed")

func (z *stagedZarr) Size(context.Context, string) (int64, error) {
	return 0, fmt.Errorf("%w: %w", errWriteOnly, fs.ErrNotExist)
}
func (z *stagedZarr) ReadAt(context.Context, string, []byte, int64) error { return errWriteOnly }
func (z *stagedZarr) List(context.Context, string) ([]string, error)      { return nil, nil }

// Put stages value as the output root/key: a chunk, or metadata to be
// published after every chunk (a group's root documents after its
// arrays').
func (z *stagedZarr) Put(ctx context.Context, key string, value []byte) error {
	s := z.s
	final := shardrun.Join(z.root, strings.Split(key, "/")...)
	last := 0
	if z.meta {
		last = 1
		switch key {
		case "zarr.json", ".zgroup", ".zattrs", ".zmetadata":
			last = 2
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	f, err := s.env.create(final, false)
	if err != nil {
		return err
	}
	if _, err := f.Write(value); err != nil {
		return err
	}
	if err := s.env.finished(f); err != nil {
		return err
	}
	s.st.Bytes += int64(len(value))
	s.done = append(s.done, fileRec{sink: s.c.Name, final: final, rows: z.rows[key], last: last})
	return nil
}
