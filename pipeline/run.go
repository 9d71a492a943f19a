package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/npyflow/npyflow/pipeline/job"
	"github.com/npyflow/npyflow/shardrun"
)

// RunOptions configures Plan.Run. The zero value means the defaults.
type RunOptions struct {
	// Workers is how many input parts are read at once; 0 means
	// GOMAXPROCS, and never more than the plan's PlanOptions.Threads
	// when that is set. Output is the same for any number of workers: parts
	// reach transforms and sinks in plan order. With GOMAXPROCS 1, or
	// one part to read, it is ignored: the parts are read one after the
	// other by the goroutine that runs the sinks, into one reused batch
	// buffer (reading ahead on another goroutine would cost hand-offs
	// and cache, and overlap little).
	Workers int
	// BatchBytes is the size of one batch; 0 means 4 MiB. A batch holds
	// whole rows, in a multiple of 64Ki rows when that at most doubles
	// its size. Memory use is about Workers * 3 * 2 * BatchBytes plus
	// what sinks buffer.
	BatchBytes int
	// Progress, if set, is told about the work done.
	Progress Progress
	// Shard, if set, makes the run one shard of a sharded run with
	// manifests, checkpoints and a commit (see ShardOptions). A plan with
	// a dataset sink runs so even without it, as shard 0 of 1.
	Shard *ShardOptions
	// Sync makes each output durable (fsync) before it is renamed into
	// place, so that it survives a power cut and not only a crash of the
	// process. Without it, outputs are still all-or-nothing for the
	// process (temporary file, rename), as numpy's and pyarrow's writes
	// are not even that. Sharded runs always sync.
	Sync bool
}

// Progress receives the progress of a run (or a conversion). Start is
// called once with the totals, Update with cumulative counts as parts
// are read (from the driving goroutine, or a writer's: calls do not
// overlap), Done once at the end, ok when every output was written.
type Progress interface {
	Start(files int, rows, bytes int64)
	Update(files int, rows, bytes int64)
	Done(ok bool)
}

// Summary is what a run (or a conversion) did.
type Summary struct {
	Files   int   // input parts read
	Rows    int64 // input rows read (or copied)
	Bytes   int64 // input data bytes read
	Sinks   []*SinkStats
	Elapsed time.Duration
	// Shard is set for sharded runs (RunOptions.Shard or a dataset sink).
	Shard *shardrun.Summary
}

// DefaultBatchBytes is the default RunOptions.BatchBytes.
const DefaultBatchBytes = 4 << 20

type batchMsg struct {
	b   Batch
	buf []byte
	err error
}

type partJob struct {
	src  source
	part *Part
	ch   chan batchMsg
	// copied: every consumer copies the part (copy.go), so no worker
	// reads its rows.
	copied bool
}

// InternalError is a panic of npyflow's own code in a goroutine a run
// started (a bug: a panic is never the data's fault), returned as the
// run's error; Stack is where it happened.
type InternalError struct {
	Value any
	Stack []byte
}

func (e *InternalError) Error() string {
	return fmt.Sprintf("internal error (please report it): %v", e.Value)
}

// Run executes the plan: it reads every part (several at once), pushes the
// rows through the transforms in plan order and writes the sinks' outputs,
// which are moved into place only if everything succeeded. If ctx is
// cancelled, Run stops, removes its temporary files and returns an error
// wrapping ctx.Err().
func (p *Plan) Run(ctx context.Context, opts *RunOptions) (sum *Summary, err error) {
	if p.used {
		return nil, errors.New("pipeline: a Plan runs only once")
	}
	p.used = true
	defer p.Close()
	if opts == nil {
		opts = &RunOptions{}
	}
	// The run's context, which the sharded run's calls take: ctx itself
	// becomes the readers' below, cancelled when Run returns.
	runCtx := ctx
	p.env.ctx = ctx
	p.env.out.sync = opts.Sync
	p.env.out.ctx = ctx
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	if t := p.env.threads; t > 0 {
		workers = min(workers, t)
	}
	batchBytes := opts.BatchBytes
	if batchBytes <= 0 {
		batchBytes = DefaultBatchBytes
	}
	start := time.Now()
	var d *distRun
	defer func() {
		if err != nil {
			p.env.out.abort()
			if d != nil && d.run != nil {
				d.run.Abort()
				// Say what the manifest keeps for --resume.
				err = d.run.Interrupted(runCtx, err)
			}
		}
	}()

	// How the outputs are published: all at once at the end, or, for a
	// sharded run, staged at checkpoints and committed with the others.
	var pub publisher = &plainRun{out: p.env.out}
	if opts.Shard != nil || p.needsDist() || p.frozen != nil {
		so := opts.Shard
		if so == nil {
			so = &ShardOptions{}
		}
		if d, err = p.startDist(ctx, so); err != nil {
			return nil, err
		}
		if d.run.Summary().Done != "" {
			if err := d.run.MaybeCommit(runCtx); err != nil {
				return nil, err
			}
			return &Summary{Shard: d.run.Summary(), Elapsed: time.Since(start)}, nil
		}
		p.env.dist = d
		pub = d
	}

	jobs, totRows, totBytes := p.partJobs(pub)
	prog := &progress{p: opts.Progress}
	if prog.p != nil {
		prog.p.Start(len(jobs), totRows, totBytes)
		defer func() { prog.p.Done(err == nil) }()
	}

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	slots := make(chan struct{}, workers)
	var wg sync.WaitGroup
	pools := &bufPools{bytes: batchBytes, pools: map[int64]*sync.Pool{}}
	// With one thread for Go code (or Threads 1), or one part to read (a conversion),
	// the driving goroutine reads each part itself, into one batch buffer
	// it reuses (still in cache), with no hand-off between goroutines:
	// reading ahead on another goroutine was measured to cost CPU and
	// not to save time there (benchmarks/RESULTS.md, issue 20).
	inline := runtime.GOMAXPROCS(0) == 1 || p.env.threads == 1 || len(jobs) == 1
	if inline {
		workers = 0
	}
	startReaders(ctx, jobs, min(workers, len(jobs)), slots, pools, &wg)
	defer wg.Wait()
	defer cancel()

	sum = &Summary{}
	for _, j := range jobs {
		if err := p.drive(ctx, j, pools, sum, prog, &wg, inline); err != nil {
			return nil, err
		}
		if !inline {
			<-slots
		}
		if err := pub.partDone(runCtx, j.part); err != nil {
			return nil, err
		}
	}
	if err := p.finish(ctx); err != nil {
		return nil, err
	}
	if err := pub.commit(runCtx); err != nil {
		return nil, err
	}
	if d != nil {
		sum.Shard = d.run.Summary()
	}
	for _, s := range p.sinks {
		sum.Sinks = append(sum.Sinks, s.stats())
	}
	sum.Elapsed = time.Since(start)
	return sum, nil
}

// partJobs lists the parts the run reads (those pub includes), in plan
// order, with their total rows and bytes; a part every consumer copies
// is read by none (its channel closed).
func (p *Plan) partJobs(pub publisher) (jobs []*partJob, rows, bytes int64) {
	for _, s := range p.srcs {
		for _, pt := range s.Parts() {
			if !pub.includes(pt) {
				continue
			}
			j := &partJob{src: s, part: pt, ch: make(chan batchMsg, 2), copied: copiedByAll(s, pt)}
			if j.copied {
				close(j.ch)
			}
			jobs = append(jobs, j)
			rows += pt.Rows
			bytes += pt.Rows * partSchema(s.Schema(), pt).RowSize()
		}
	}
	return jobs, rows, bytes
}

// startReaders starts n goroutines (added to wg) that read the parts of
// jobs in order, each taking a slot first (given back by the driver once
// it has consumed the part), until ctx is done.
func startReaders(ctx context.Context, jobs []*partJob, n int, slots chan struct{}, pools *bufPools, wg *sync.WaitGroup) {
	var next atomic.Int64
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case slots <- struct{}{}:
				case <-ctx.Done():
					return
				}
				i := int(next.Add(1) - 1)
				if i >= len(jobs) {
					<-slots
					return
				}
				if !jobs[i].copied {
					readPart(ctx, jobs[i], pools)
				}
			}
		}()
	}
}

// finish ends the transforms and sinks, in plan order, after the last
// part: a sink finishes its last file.
func (p *Plan) finish(ctx context.Context) error {
	for _, c := range p.order {
		if c.Kind == job.Source {
			continue
		}
		if err := p.nodes[c.Name].Finish(); err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return interrupted(err)
		}
	}
	return nil
}

// copiedByAll reports whether every consumer of s copies part pt.
func copiedByAll(s source, pt *Part) bool {
	cons := s.(interface{ consumers() fanout }).consumers()
	if len(cons) == 0 {
		return false
	}
	for _, n := range cons {
		c, ok := n.(partCopier)
		if !ok || !c.copies(s, pt) {
			return false
		}
	}
	return true
}

// progress serializes the reports to a Progress (nil: none): a copy
// reports from its writer's goroutines.
type progress struct {
	mu sync.Mutex
	p  Progress
}

func (g *progress) update(files int, rows, bytes int64) {
	if g.p != nil {
		g.mu.Lock()
		g.p.Update(files, rows, bytes)
		g.mu.Unlock()
	}
}

// publisher is the narrow interface between a run and how its outputs
// are published: which parts it reads, "this part is done" and
// "commit". A plain run (plainRun) renames every output into place at
// the end; a sharded run (distRun, commit.go, driving a shardrun.Run)
// stages outputs at checkpoints, records finished parts in its manifest
// and commits the run when the last shard finishes.
type publisher interface {
	includes(pt *Part) bool
	partDone(ctx context.Context, pt *Part) error
	commit(ctx context.Context) error
}

// plainRun publishes a plain run's outputs all at once.
type plainRun struct{ out *outputs }

func (plainRun) includes(*Part) bool                            { return true }
func (plainRun) partDone(context.Context, *Part) error          { return nil }
func (r *plainRun) commit(context.Context) error                { return r.out.commit() }
func (d *distRun) includes(pt *Part) bool                       { return d.include[pt] }
func (d *distRun) partDone(ctx context.Context, pt *Part) error { return d.afterPart(ctx, pt) }
func (d *distRun) commit(ctx context.Context) error             { return d.finish(ctx) }

func interrupted(err error) error {
	return fmt.Errorf("interrupted, no output written: %w", err)
}

// batchSize is the byte size of a batch buffer holding whole rows: about
// batchBytes, in a multiple of 64Ki rows when 64Ki rows take at most
// twice that (the record batches of an Arrow sink then fill without
// copying).
func batchSize(rowSize int64, batchBytes int) int {
	if rowSize <= 0 {
		return 0
	}
	rows := max(1, int64(batchBytes)/rowSize)
	if 1<<16*rowSize <= 2*int64(batchBytes) {
		rows = max(rows&^(1<<16-1), 1<<16)
	}
	return int(rows * rowSize)
}

// readChunk is how much readPart asks of a part at once: a few hundred
// KiB, so that a reader's fixes (byte swaps, bools) run on bytes still in
// cache.
const readChunk = 256 << 10

// fill reads rows of rowSize bytes from r into buf until it is full or
// the rows end (io.EOF with no rows).
func fill(r rowReader, buf []byte, rowSize int) (int, error) {
	if rowSize == 0 {
		return r.ReadRows(buf)
	}
	step := max(1, readChunk/rowSize) * rowSize
	n := 0
	for n*rowSize < len(buf) {
		k, err := r.ReadRows(buf[n*rowSize : min(len(buf), n*rowSize+step)])
		n += k
		if err == io.EOF && n > 0 {
			break
		}
		if err != nil {
			return n, err
		}
		if k == 0 {
			break
		}
	}
	return n, nil
}

// bufPools are the batch buffers, by row size.
type bufPools struct {
	mu    sync.Mutex
	bytes int
	pools map[int64]*sync.Pool
}

func (b *bufPools) of(rowSize int64) *sync.Pool {
	b.mu.Lock()
	defer b.mu.Unlock()
	p := b.pools[rowSize]
	if p == nil {
		size := batchSize(rowSize, b.bytes)
		p = &sync.Pool{New: func() any {
			batchBufs.Add(1)
			b := make([]byte, size)
			return &b
		}}
		b.pools[rowSize] = p
	}
	return p
}

// batchBufs counts the batch buffers made (a test hook).
var batchBufs atomic.Int64

// readPart reads one part into its channel, then closes it. A panic (a
// bug) is sent as an InternalError: it must not take the process down
// from a goroutine no caller can recover.
func readPart(ctx context.Context, j *partJob, pools *bufPools) {
	defer close(j.ch)
	readBatches(ctx, j, pools, func(m batchMsg) bool {
		select {
		case j.ch <- m:
			return true
		case <-ctx.Done():
			return false
		}
	})
}

// readBatches reads one part in batches and gives each to send, which
// returns whether to go on. A batch's buffer comes from pools; send
// owns it (a caller that returns it to the pool before returning gets
// it back for the next batch). A panic (a bug) is sent as an
// InternalError.
func readBatches(ctx context.Context, j *partJob, pools *bufPools, send func(batchMsg) bool) {
	defer func() {
		if v := recover(); v != nil {
			send(batchMsg{err: &InternalError{Value: v, Stack: debug.Stack()}})
		}
	}()
	pr, err := j.src.open(ctx, j.part)
	if err != nil {
		send(batchMsg{err: err})
		return
	}
	defer pr.Close()
	rowSize := partSchema(j.src.Schema(), j.part).RowSize()
	pool := pools.of(rowSize)
	for {
		bp := pool.Get().(*[]byte)
		n, err := fill(pr, *bp, int(rowSize))
		if err == io.EOF {
			pool.Put(bp)
			return
		}
		if err != nil {
			pool.Put(bp)
			send(batchMsg{err: err})
			return
		}
		if !send(batchMsg{b: Batch{Rows: n, Data: (*bp)[:n*int(rowSize)]}, buf: *bp}) {
			return
		}
	}
}

// drive pushes one part's batches through the graph, in order; the
// consumers that copy the part write it themselves.
// inline: read the part here, not from a reading goroutine's channel.
func (p *Plan) drive(ctx context.Context, j *partJob, pools *bufPools, sum *Summary, prog *progress, wg *sync.WaitGroup, inline bool) error {
	all := j.src.(interface{ consumers() fanout }).consumers()
	out := all
	if err := out.Begin(j.part); err != nil {
		return err
	}
	rowSize := partSchema(j.src.Schema(), j.part).RowSize()
	pool := pools.of(rowSize)
	count := true // the rows pushed count as read
	if j.copied {
		var rest fanout // the consumers that could not copy after all
		var rows int64
		for _, n := range out {
			base := sum.Rows
			ok, k, err := n.(partCopier).copyPart(ctx, j.src, j.part, func(r int64) {
				prog.update(sum.Files, base+r, (base+r)*rowSize)
			})
			if err != nil {
				return err
			}
			if !ok {
				rest = append(rest, n)
			}
			rows = max(rows, k)
		}
		sum.Rows += rows
		sum.Bytes += rows * rowSize
		count = rows == 0
		if len(rest) > 0 {
			// Read the part for those.
			j = &partJob{src: j.src, part: j.part, ch: make(chan batchMsg, 2)}
			if !inline {
				wg.Add(1)
				go func() {
					defer wg.Done()
					readPart(ctx, j, pools)
				}()
			}
			out = rest
		} else {
			inline = false // nothing to read: the closed channel ends the part
		}
	}
	push := func(m batchMsg) error {
		if m.err != nil {
			return m.err
		}
		err := out.Push(m.b)
		buf := m.buf
		pool.Put(&buf)
		if err != nil {
			return err
		}
		if count {
			sum.Rows += int64(m.b.Rows)
			sum.Bytes += int64(m.b.Rows) * rowSize
		}
		prog.update(sum.Files, sum.Rows, sum.Bytes) // a copied part's other consumers report too
		return nil
	}
	if inline {
		var err error
		readBatches(ctx, j, pools, func(m batchMsg) bool {
			if ctx.Err() == nil {
				err = push(m)
			}
			return err == nil && ctx.Err() == nil
		})
		if err != nil {
			return err
		}
	} else {
		for {
			var m batchMsg
			var ok bool
			select {
			case m, ok = <-j.ch:
			case <-ctx.Done():
				return interrupted(ctx.Err())
			}
			if !ok {
				break
			}
			if err := push(m); err != nil {
				return err
			}
		}
	}
	if err := ctx.Err(); err != nil {
		return interrupted(err)
	}
	if err := all.End(j.part); err != nil {
		return err
	}
	sum.Files++
	prog.update(sum.Files, sum.Rows, sum.Bytes)
	return nil
}
