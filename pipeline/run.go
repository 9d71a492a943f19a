package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/npyflow/npyflow/shardrun"
)

// RunOptions configures Plan.Run. The zero value means the defaults.
type RunOptions struct {
	// Workers is how many input parts are read at once; 0 means
	// GOMAXPROCS. Output is the same for any number of workers: parts
	// reach transforms and sinks in plan order.
	Workers int
	// BatchBytes bounds the size of one batch; 0 means 4 MiB. Memory use
	// is about Workers * 3 * BatchBytes plus what sinks buffer.
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

// Progress receives the run's progress. Start is called once with the
// totals, Update with cumulative counts as input is read (from the
// driving goroutine), Done at the end.
type Progress interface {
	Start(files int, rows, bytes int64)
	Update(files int, rows, bytes int64)
	Done()
}

// Summary is what a run did.
type Summary struct {
	Files   int   // input parts read
	Rows    int64 // input rows read
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
	p.env.out.sync = opts.Sync
	p.env.out.ctx = ctx
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
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
				err = d.run.Interrupted(err)
			}
		}
	}()
	for _, c := range p.Job.Components {
		if err := c.Spec.Available(); err != nil {
			return nil, fmt.Errorf("%s: %s: %w", c.Pos, c.Path(), err)
		}
	}

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
			if err := d.run.MaybeCommit(); err != nil {
				return nil, err
			}
			return &Summary{Shard: d.run.Summary(), Elapsed: time.Since(start)}, nil
		}
		p.env.dist = d
		pub = d
	}

	var jobs []*partJob
	var totRows, totBytes int64
	for _, s := range p.srcs {
		for _, pt := range s.Parts() {
			if !pub.includes(pt) {
				continue
			}
			jobs = append(jobs, &partJob{src: s, part: pt, ch: make(chan batchMsg, 2)})
			totRows += pt.Rows
			totBytes += pt.Rows * s.Schema().RowSize()
		}
	}
	if opts.Progress != nil {
		opts.Progress.Start(len(jobs), totRows, totBytes)
		defer opts.Progress.Done()
	}

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	slots := make(chan struct{}, workers)
	var next atomic.Int64
	var wg sync.WaitGroup
	pools := map[source]*sync.Pool{}
	for _, s := range p.srcs {
		size := batchSize(s.Schema().RowSize(), batchBytes)
		pools[s] = &sync.Pool{New: func() any { b := make([]byte, size); return &b }}
	}
	for w := 0; w < min(workers, len(jobs)); w++ {
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
				readPart(ctx, jobs[i], pools[jobs[i].src])
			}
		}()
	}
	defer wg.Wait()
	defer cancel()

	sum = &Summary{}
	for _, j := range jobs {
		if err := p.drive(ctx, j, pools[j.src], sum, opts.Progress); err != nil {
			return nil, err
		}
		<-slots
		if err := pub.partDone(j.part); err != nil {
			return nil, err
		}
	}
	for _, c := range p.order {
		if c.Kind == Source {
			continue
		}
		if err := p.nodes[c.Name].Finish(); err != nil {
			return nil, err
		}
		if err := ctx.Err(); err != nil {
			return nil, interrupted(err)
		}
	}
	if err := pub.commit(); err != nil {
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

// publisher is the narrow interface between a run and how its outputs
// are published: which parts it reads, "this part is done" and
// "commit". A plain run (plainRun) renames every output into place at
// the end; a sharded run (distRun, commit.go, driving a shardrun.Run)
// stages outputs at checkpoints, records finished parts in its manifest
// and commits the run when the last shard finishes.
type publisher interface {
	includes(pt *Part) bool
	partDone(pt *Part) error
	commit() error
}

// plainRun publishes a plain run's outputs all at once.
type plainRun struct{ out *outputs }

func (plainRun) includes(*Part) bool       { return true }
func (plainRun) partDone(*Part) error      { return nil }
func (r *plainRun) commit() error          { return r.out.commit() }
func (d *distRun) includes(pt *Part) bool  { return d.include[pt] }
func (d *distRun) partDone(pt *Part) error { return d.afterPart(pt) }
func (d *distRun) commit() error           { return d.finish() }

func interrupted(err error) error {
	return fmt.Errorf("interrupted, no output written: %w", err)
}

// batchSize is the byte size of a batch buffer holding whole rows.
func batchSize(rowSize int64, batchBytes int) int {
	if rowSize <= 0 {
		return 0
	}
	rows := max(1, int64(batchBytes)/rowSize)
	return int(rows * rowSize)
}

// readPart reads one part into its channel, then closes it.
func readPart(ctx context.Context, j *partJob, pool *sync.Pool) {
	defer close(j.ch)
	send := func(m batchMsg) bool {
		select {
		case j.ch <- m:
			return true
		case <-ctx.Done():
			return false
		}
	}
	pr, err := j.src.open(j.part)
	if err != nil {
		send(batchMsg{err: err})
		return
	}
	defer pr.Close()
	rowSize := int(j.src.Schema().RowSize())
	for {
		bp := pool.Get().(*[]byte)
		n, err := pr.ReadRows(*bp)
		if err == io.EOF {
			pool.Put(bp)
			return
		}
		if err != nil {
			pool.Put(bp)
			send(batchMsg{err: err})
			return
		}
		if !send(batchMsg{b: Batch{Rows: n, Data: (*bp)[:n*rowSize]}, buf: *bp}) {
			return
		}
	}
}

// drive pushes one part's batches through the graph, in order.
func (p *Plan) drive(ctx context.Context, j *partJob, pool *sync.Pool, sum *Summary, prog Progress) error {
	out := j.src.(interface{ consumers() fanout }).consumers()
	if err := out.Begin(j.part); err != nil {
		return err
	}
	rowSize := j.src.Schema().RowSize()
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
		if m.err != nil {
			return m.err
		}
		err := out.Push(m.b)
		buf := m.buf
		pool.Put(&buf)
		if err != nil {
			return err
		}
		sum.Rows += int64(m.b.Rows)
		sum.Bytes += int64(m.b.Rows) * rowSize
		if prog != nil {
			prog.Update(sum.Files, sum.Rows, sum.Bytes)
		}
	}
	if err := ctx.Err(); err != nil {
		return interrupted(err)
	}
	if err := out.End(j.part); err != nil {
		return err
	}
	sum.Files++
	if prog != nil {
		prog.Update(sum.Files, sum.Rows, sum.Bytes)
	}
	return nil
}
