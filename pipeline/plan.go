package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/npyflow/npyflow/internal/storage"
	"github.com/npyflow/npyflow/pipeline/job"
)

// buildEnv is what builders share: the run's output files, the frozen
// plan's inputs (if any) and, while running, the sharded run.
type buildEnv struct {
	ctx     context.Context // planning's (and, while running, the run's)
	warn    func(string)    // PlanOptions.Warn
	out     *outputs
	project map[string]*pushdown     // columns pushed down to sources (projections)
	dropped map[string][]string      // by source: file columns left out (projections)
	inputs  map[string][]string      // by component: its inputs
	stdin   io.Reader                // PlanOptions.Stdin
	spooled string                   // the source that read standard input
	cleanup []func()                 // run by Plan.Close
	frozen  map[string][]FrozenInput // by source
	plan    *FrozenPlan              // the frozen plan, if any
	dist    *distRun
	threads int // PlanOptions.Threads: what each format library is given
}

// threadsHook, if set, hears the Threads option the engine gives a format
// library (lib: "hdf5 reader", "parquet writer") (a test hook).
var threadsHook func(lib string, threads int)

// libThreads is the Threads option of the format library lib
// (PlanOptions.Threads; 0: GOMAXPROCS).
func (e *buildEnv) libThreads(lib string) int {
	if threadsHook != nil {
		threadsHook(lib, e.threads)
	}
	return e.threads
}

// leftOut returns the file columns the sources upstream of component
// name left out, as no consumer needs them (projections).
func (e *buildEnv) leftOut(name string) []string {
	if e == nil || len(e.dropped) == 0 {
		return nil
	}
	var out []string
	seen := map[string]bool{}
	var walk func(string)
	walk = func(n string) {
		if seen[n] {
			return
		}
		seen[n] = true
		out = append(out, e.dropped[n]...)
		for _, in := range e.inputs[n] {
			walk(in)
		}
	}
	walk(name)
	return out
}

// Plan is a job made concrete: globs expanded, headers read, every
// component built with its input schema and every output path known.
// Making a plan reads only file headers and writes nothing. A Plan runs
// once.
type Plan struct {
	Job     *job.Job
	Sources []*SourcePlan
	Outputs []*OutputPlan

	order  []*job.Component
	nodes  map[string]node
	srcs   []source
	sinks  []sinkNode
	env    *buildEnv
	used   bool
	frozen *FrozenPlan
}

// PlanOptions configures NewPlan.
type PlanOptions struct {
	// Frozen, if set, replaces the expansion of the sources' patterns by
	// the plan's inputs, so the run reads exactly what was planned.
	Frozen *FrozenPlan
	// Stdin is read by a source whose paths are just "-" ([StdinName]);
	// nil: os.Stdin. It is copied to a temporary file ($TMPDIR) when the
	// plan is made (its format is the source's type), removed by
	// [Plan.Close] or at the end of [Plan.Run].
	Stdin io.Reader
	// Warn receives the warnings of making and running the plan that do
	// not fail it (an HDF5 dataset of a type without a numpy form
	// skipped, a MAT-file name renamed); nil prints
	// "npyflow: warning: MSG" on standard error.
	Warn func(msg string)
	// Threads caps the goroutines of the run: each format library reads
	// and writes (decodes, compresses) on at most Threads goroutines,
	// and the engine reads at most Threads parts at once
	// (RunOptions.Workers). 0 means runtime.GOMAXPROCS(0); it must not be
	// negative. Outputs are the same bytes for every value.
	Threads int
}

// stdinMatch is the input of a source reading standard input: its copy
// in a temporary file. One source of a job can read it, not in a frozen
// (sharded) plan.
func (e *buildEnv) stdinMatch(c *job.Component) ([]match, error) {
	if e.frozen != nil {
		return nil, c.Errorf("paths", "standard input (-) cannot be read by a frozen or sharded plan")
	}
	if e.spooled != "" {
		return nil, c.Errorf("paths", "standard input (-) is read by source %q already", e.spooled)
	}
	e.spooled = c.Name
	r := e.stdin
	if r == nil {
		r = os.Stdin
	}
	m, err := e.spoolMatch(c, r, "standard input")
	return []match{m}, err
}

// spoolMatch copies the stream r (name is for messages) to a temporary
// file, removed by Plan.Close, matched as the input.
func (e *buildEnv) spoolMatch(c *job.Component, r io.Reader, name string) (match, error) {
	path, _, cleanup, err := spool(e.ctx, r, name)
	if err != nil {
		return match{}, pathsError(c, err)
	}
	e.cleanup = append(e.cleanup, cleanup)
	st, err := os.Stat(path)
	if err != nil {
		return match{}, err
	}
	return match{Path: path, Size: st.Size()}, nil
}

// spoolPipe copies a local input that is a pipe or a device (not a
// regular file) to a temporary file, removed by Plan.Close: formats read
// their inputs more than once (metadata, then rows), at offsets.
func (e *buildEnv) spoolPipe(c *job.Component, m match) (match, error) {
	if st, err := os.Stat(m.Path); storage.Scheme(m.Path) != "" || err != nil || st.Mode().IsRegular() || st.IsDir() {
		return m, nil // opening it reports any problem
	}
	f, err := os.Open(m.Path)
	if err != nil {
		return m, pathsError(c, &FileError{Path: m.Path, Err: bare(err)})
	}
	defer f.Close()
	sm, err := e.spoolMatch(c, f, m.Path)
	sm.Caps = m.Caps
	return sm, err
}

// Close removes what making the plan left in temporary files (a copy of
// standard input); [Plan.Run] does it when it ends. A plan that is not run
// should be closed.
func (p *Plan) Close() {
	for _, f := range p.env.cleanup {
		f()
	}
	p.env.cleanup = nil
}

// SourcePlan is what a source will read.
type SourcePlan struct {
	Name   string
	Type   string
	Schema *Schema
	Parts  []*Part
	Rows   int64
	Bytes  int64 // data bytes (rows times row size)
}

// OutputPlan is what a sink will write.
type OutputPlan struct {
	Sink      string
	Type      string
	Schema    *Schema
	Paths     []string
	Rows      int64
	RowsExact bool // false when Rows is an upper bound (after filter or sample)
}

// NewPlan builds a job's plan, reading what it needs of the inputs
// (their headers) under ctx. Problems with the job (a field that does not
// exist, incompatible inputs) come back as a job.ErrorList; problems with
// the files (no match, unreadable header) as other errors. o may be nil.
//
// It builds the components in topological order (planBuild.add: gather
// what reaches a component from its inputs, build its node, tell a sink
// what the plan knows of its rows, record its plan), then checks the
// outputs as a whole.
func NewPlan(ctx context.Context, j *job.Job, o *PlanOptions) (*Plan, error) {
	if o != nil && o.Threads < 0 {
		return nil, fmt.Errorf("pipeline: PlanOptions.Threads %d: want 0 (every core) or more", o.Threads)
	}
	p := newPlan(ctx, j, o)
	order, err := topoOrder(j)
	if err != nil {
		return nil, err
	}
	p.order = order
	p.env.project = projections(j)
	p.env.inputs = map[string][]string{}
	for _, c := range j.Components {
		p.env.inputs[c.Name] = c.Inputs
	}
	b := &planBuild{p: p,
		rows: map[string]int64{}, exact: map[string]bool{}, parts: map[string][]*Part{},
		sources: map[string]map[string]bool{}, sameRows: map[string]bool{},
		passRows: map[string]bool{}, passFrom: map[string]*fileSource{}}
	for _, c := range order {
		b.add(c)
	}
	b.checkOutputs(ctx)
	if len(b.dataErrs) > 0 {
		p.Close()
		return nil, errors.Join(b.dataErrs...)
	}
	if err := b.jobErrs.Err(); err != nil {
		p.Close()
		return nil, err
	}
	return p, nil
}

// newPlan is an empty plan of j with its build environment.
func newPlan(ctx context.Context, j *job.Job, o *PlanOptions) *Plan {
	p := &Plan{Job: j, nodes: map[string]node{}, env: &buildEnv{ctx: ctx, out: &outputs{ctx: ctx}, warn: defaultWarn}}
	if o != nil {
		p.env.stdin = o.Stdin
		p.env.threads = o.Threads
		if o.Warn != nil {
			p.env.warn = o.Warn
		}
	}
	if o != nil && o.Frozen != nil {
		p.frozen = o.Frozen
		p.env.plan = o.Frozen
		p.env.frozen = map[string][]FrozenInput{}
		for _, in := range o.Frozen.Inputs {
			p.env.frozen[in.Source] = append(p.env.frozen[in.Source], in)
		}
	}
	return p
}

// planBuild is NewPlan at work: what it knows of each component built so
// far, by name, and the problems found.
type planBuild struct {
	p        *Plan
	jobErrs  job.ErrorList
	dataErrs []error
	rows     map[string]int64
	exact    map[string]bool            // rows is exact, not an upper bound
	parts    map[string][]*Part         // the parts flowing out
	sources  map[string]map[string]bool // the sources reaching it
	sameRows map[string]bool            // every part keeps its rows from its source
	passRows map[string]bool            // the rows kept are the source's, unchanged
	passFrom map[string]*fileSource     // that source, when it is one
}

// fail records a problem: with the job (a job.Error or ErrorList) or
// with the data.
func (b *planBuild) fail(err error) {
	var e *job.Error
	var l job.ErrorList
	switch {
	case errors.As(err, &l):
		b.jobErrs = append(b.jobErrs, l...)
	case errors.As(err, &e):
		b.jobErrs = append(b.jobErrs, e)
	default:
		b.dataErrs = append(b.dataErrs, err)
	}
}

// nodeInput is what reaches a component from its inputs, concatenated.
type nodeInput struct {
	schema *Schema
	rows   int64
	exact  bool
	parts  []*Part
	reach  map[string]bool // the sources reaching it
}

// add builds component c (its inputs built before it) and records its
// plan; a problem is recorded and c left out.
func (b *planBuild) add(c *job.Component) {
	in, ok := b.inputOf(c)
	if !ok {
		return
	}
	n, ok := b.build(c, in.schema)
	if !ok {
		return
	}
	b.feed(c, n, in)
	if sn, ok := n.(sinkNode); ok && c.Kind == job.Sink {
		if _, ds := n.(*datasetSink); !ds {
			n = newTrackedSink(c, sn, b.p.env)
		}
	}
	b.sources[c.Name] = in.reach
	for _, name := range c.Inputs {
		b.p.nodes[name].(producer).connect(n)
	}
	b.p.nodes[c.Name] = n
	b.record(c, n, in)
}

// inputOf gathers what reaches c from its inputs; ok false when an input
// failed to build or they do not fit together.
func (b *planBuild) inputOf(c *job.Component) (in nodeInput, ok bool) {
	in = nodeInput{exact: true, reach: map[string]bool{}}
	ok = true
	for i, name := range c.Inputs {
		n := b.p.nodes[name]
		if n == nil {
			return in, false // the input failed to build
		}
		for s := range b.sources[name] {
			if in.reach[s] {
				b.fail(c.ItemErrorf("input", i, "source %q reaches this %s through two inputs; rows would interleave", s, c.Kind))
				ok = false
			}
			in.reach[s] = true
		}
		if in.schema == nil {
			in.schema = n.Schema()
		} else if !in.schema.Equal(n.Schema()) {
			b.fail(c.ItemErrorf("input", i, "inputs must have the same schema to be concatenated: %q gives %s, but %q gives %s", c.Inputs[0], in.schema, name, n.Schema()))
			ok = false
		}
		in.rows += b.rows[name]
		in.exact = in.exact && b.exact[name]
		in.parts = append(in.parts, b.parts[name]...)
	}
	if c.Kind == job.Source {
		in.reach[c.Name] = true
	}
	return in, ok
}

// build builds the node of c on input schema in, and checks that it
// takes what its input sources give: parts of different schemas (only
// a sink writing each in its own file does), arrays kept as stored (only
// an npy or npz sink fed by the source alone does).
func (b *planBuild) build(c *job.Component, in *Schema) (node, bool) {
	var mixed error   // an input source's parts differ
	var stored string // an input source keeps its arrays as stored
	for _, name := range c.Inputs {
		if fs, ok := b.p.nodes[name].(*fileSource); ok {
			if fs.mixed != nil {
				mixed = fs.mixed
			}
			if st, ok := fs.r.(storer); ok && st.stores() {
				stored = name
			}
		}
	}
	if mixed != nil && c.Kind != job.Sink {
		b.fail(mixed)
		return nil, false
	}
	n, err := build(c, in, b.p.env)
	if err != nil {
		b.fail(err)
		return nil, false
	}
	if m, ok := n.(interface{ acceptsMixed() bool }); mixed != nil && (!ok || !m.acceptsMixed()) {
		b.fail(mixed)
		return nil, false
	}
	if stored != "" {
		if st, ok := n.(partCopier); !ok || !st.takesStored() || len(c.Inputs) != 1 {
			src := b.p.Job.Component(stored)
			b.fail(src.Errorf("fortran_order", "keeps arrays as stored, which only npy and npz sinks fed by the source alone can write, not %s %q (a transform or another sink reads rows, in C order)", c.Kind, c.Name))
			return nil, false
		}
	}
	return n, true
}

// feed works out what the plan knows of the rows leaving c's node n
// (whether every part keeps its rows, whether they are the source's
// own) and tells a sink (sinkFeed), once, before the run.
func (b *planBuild) feed(c *job.Component, n node, in nodeInput) {
	same := c.Kind != job.Transform || rowPreserving[c.Type] || keepsEveryRow(n, in.rows, in.exact)
	_, selects := n.(*rowSelect)
	pass := c.Kind != job.Transform || selects || c.Type == "filter"
	for _, name := range c.Inputs {
		same = same && b.sameRows[name]
		pass = pass && b.passRows[name]
	}
	b.sameRows[c.Name], b.passRows[c.Name] = same, pass
	if fs, ok := n.(*fileSource); ok {
		b.passFrom[c.Name] = fs
	} else if pass && len(c.Inputs) == 1 {
		b.passFrom[c.Name] = b.passFrom[c.Inputs[0]]
	}
	if c.Kind != job.Sink {
		return
	}
	if k, ok := n.(partsKeeper); ok {
		_, direct := b.p.nodes[c.Inputs[0]].(*fileSource)
		f := sinkFeed{same: same, exact: in.exact, direct: direct && len(c.Inputs) == 1}
		if pass && len(c.Inputs) == 1 {
			f.from = b.passFrom[c.Name]
		}
		k.knowParts(in.parts, f)
	}
}

// record adds c's plan: a source's parts and rows, the rows and parts a
// transform gives, a sink's output.
func (b *planBuild) record(c *job.Component, n node, in nodeInput) {
	p := b.p
	switch c.Kind {
	case job.Source:
		s := n.(source)
		p.srcs = append(p.srcs, s)
		sp := &SourcePlan{Name: c.Name, Type: c.Type, Schema: s.Schema(), Parts: s.Parts()}
		for _, pt := range sp.Parts {
			sp.Rows += pt.Rows
			sp.Bytes += pt.Rows * partSchema(s.Schema(), pt).RowSize()
		}
		p.Sources = append(p.Sources, sp)
		b.rows[c.Name], b.exact[c.Name], b.parts[c.Name] = sp.Rows, true, sp.Parts
	case job.Transform:
		r, e := in.rows, in.exact
		if pl, ok := n.(planner); ok {
			r, e = pl.planRows(r, e)
		}
		pp := in.parts
		if pl, ok := n.(partPlanner); ok {
			pp = pl.planParts(in.parts)
		}
		b.rows[c.Name], b.exact[c.Name], b.parts[c.Name] = r, e, pp
	case job.Sink:
		s := n.(sinkNode)
		p.sinks = append(p.sinks, s)
		paths, err := s.plannedPaths(in.parts)
		if err != nil {
			b.fail(err)
			return
		}
		if f := formatNamed(c.Type); f != nil && f.Caps.DropsTimeZones {
			warnLostZones(p.env.warn, f.Exts[0], in.parts)
		}
		p.Outputs = append(p.Outputs, &OutputPlan{Sink: c.Name, Type: c.Type, Schema: in.schema, Paths: paths, Rows: in.rows, RowsExact: in.exact})
	}
}

// checkOutputs checks the outputs together: no two sinks write one
// file, and none with mode error_if_exists exists.
func (b *planBuild) checkOutputs(ctx context.Context) {
	written := map[string]string{}
	for _, o := range b.p.Outputs {
		c := b.p.Job.Component(o.Sink)
		for _, path := range o.Paths {
			if prev, dup := written[path]; dup && prev != o.Sink {
				b.fail(c.Errorf("path", "sinks %q and %q both write %s", prev, o.Sink, path))
			}
			written[path] = o.Sink
		}
		if sinkMode(c) == "error_if_exists" {
			for _, path := range o.Paths {
				if _, err := storage.Stat(ctx, path); err == nil {
					b.fail(&dataError{pos: c.PosOf("mode"), path: c.Path() + ".mode", err: fmt.Errorf("%s exists (mode: error_if_exists)", path)})
				}
			}
		}
	}
}

// topoOrder orders components so that every input comes before its
// consumers: sources first, then transforms, then sinks.
func topoOrder(j *job.Job) ([]*job.Component, error) {
	var order []*job.Component
	done := map[string]bool{}
	var visit func(c *job.Component)
	visit = func(c *job.Component) {
		if done[c.Name] {
			return
		}
		done[c.Name] = true
		for _, in := range c.Inputs {
			if d := j.Component(in); d != nil {
				visit(d)
			}
		}
		order = append(order, c)
	}
	for _, k := range []job.Kind{job.Source, job.Transform, job.Sink} {
		for _, c := range j.Of(k) {
			visit(c)
		}
	}
	return order, nil
}

// Describe writes a human-readable account of the plan: sources with
// their files and rows, and outputs with schema, rows and paths.
func (p *Plan) Describe() string {
	var b strings.Builder
	for _, s := range p.Sources {
		fmt.Fprintf(&b, "source %s (%s): %d input(s), %d rows, %s\n", s.Name, s.Type, len(s.Parts), s.Rows, HumanBytes(s.Bytes))
		for i, pt := range s.Parts {
			if i == 10 && len(s.Parts) > 12 {
				fmt.Fprintf(&b, "    ... %d more\n", len(s.Parts)-10)
				break
			}
			name := storage.Redact(pt.Path)
			if pt.Member != "" {
				name += ":" + pt.Member
			}
			fmt.Fprintf(&b, "    %s (%d rows)\n", name, pt.Rows)
		}
		fmt.Fprintf(&b, "  schema:\n")
		for _, col := range s.Schema.Columns() {
			fmt.Fprintf(&b, "    %s\n", col)
		}
	}
	for _, o := range p.Outputs {
		rows := fmt.Sprint(o.Rows)
		if !o.RowsExact {
			rows = "at most " + rows
		}
		fmt.Fprintf(&b, "sink %s (%s): %s rows -> %d file(s)\n", o.Sink, o.Type, rows, len(o.Paths))
		for i, path := range o.Paths {
			if i == 10 && len(o.Paths) > 12 {
				fmt.Fprintf(&b, "    ... %d more\n", len(o.Paths)-10)
				break
			}
			fmt.Fprintf(&b, "    %s\n", storage.Redact(path))
		}
		fmt.Fprintf(&b, "  schema:\n")
		for _, col := range o.Schema.Columns() {
			fmt.Fprintf(&b, "    %s\n", col)
		}
	}
	return b.String()
}

// defaultWarn prints a warning on standard error.
func defaultWarn(msg string) { fmt.Fprintf(os.Stderr, "npyflow: warning: %s\n", msg) }

// HumanBytes formats a byte count with a binary unit.
func HumanBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}
