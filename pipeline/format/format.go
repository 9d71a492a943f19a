// Package format is the contract between npyflow's engine and a file
// format: what a format is (its names, extensions and magic), what it can
// do (one [Caps] value), its typed source and sink options, and the small
// interfaces its reader ([Source], [Handle], [RowReader]), writer
// ([Sink], [Writer]) and [Inspector] implement. A format package
// registers itself with [Register] in an init function, the way image/png
// registers with image: a program gets the format by importing the
// package (for its side effect only: import _ "…/myformat").
//
// The package imports no part of the engine; the engine
// (github.com/npyflow/npyflow/pipeline) adapts every registered format to
// its job sources and sinks, `npyflow convert`, `inspect`, `list`, the
// JSON schema and sharded runs. A format sees bytes and npyio headers
// only: globbing, path captures, staging and committing outputs, sharding,
// transforms and the conversion of rows between sinks are the engine's.
//
// Limits: rows cross the contract in numpy's layout (an npyio dtype in
// native byte order, C order); a format whose data numpy cannot hold must
// refuse it. The built-in formats of package pipeline still use the
// engine's internal interfaces (their fast paths); this contract is what
// a format outside the engine implements.
package format

import (
	"context"
	"fmt"
	"io"
	"slices"
	"sync"

	"github.com/npyflow/npyflow/npyio"
	"github.com/npyflow/npyflow/pipeline/inspect"
)

// Format is one file format: a value a format package fills in and
// passes to [Register]. Name, at least one extension and Source or Sink
// are required.
type Format struct {
	// Name is the format, and the type of its job source and sink
	// ("toy"): lower case, unique among the registered formats.
	Name string
	// Exts are the lower-case file extensions, with the dot; the first
	// is the usual one. Aliases are extensions also recognized but not
	// listed.
	Exts, Aliases []string
	// Magic is how the format's files start, for standard input and
	// inspect; none: the format is known by its extension only.
	Magic   []Magic
	Summary string // one line for `npyflow list`
	Caps    Caps   // what the format can do
	// Source reads the format; nil: the format is written only.
	Source *SourceSpec
	// Sink writes the format; nil: the format is read only.
	Sink *SinkSpec
	// Inspector says what a file holds without reading its data; nil:
	// inspect refuses the format.
	Inspector Inspector
}

// Magic is how files of a format start.
type Magic struct {
	Prefix string // the first bytes
	// Ext is the extension that names such a file, when it is not the
	// format's first (an Arrow IPC stream is .arrows).
	Ext string
	// UserBlock: the prefix may also follow a user block, at 512, 1024,
	// 2048, ... bytes (an HDF5 superblock).
	UserBlock bool
}

// Caps is what a format can do: the engine decides from this one value,
// never by probing a format's values for optional interfaces.
type Caps struct {
	// Archive: a file holds named arrays (.npz, HDF5, a MAT-file). Its
	// source lists one part per array; convert copies array by array into
	// another archive, and reads an archive as one table (its source's
	// table option) into a format that is not one.
	Archive bool
	// Table: a file holds one table of named columns (Parquet, Arrow):
	// convert writes its columns to an archive whose sink has a
	// split_fields option as one array each.
	Table bool
	// Dir: the format's inputs and outputs are directories (or bucket
	// prefixes), not files: [Input].File is nil and [Output].Dir is a
	// directory the engine staged, renamed into place at the commit.
	Dir bool
	// DropsTimeZones: the sink writes a datetime with a time zone as its
	// UTC instants, without the zone; the plan warns, naming the zone.
	DropsTimeZones bool
	// Seeks says when the sink's [Writer] seeks back in its output (to
	// patch a count into a header): an upload to an object store then
	// spools the whole file first.
	Seeks Seeks
	// NPYRows: the [RowReader] a source's handle opens is an
	// *npyio.Reader of the part as stored (the part's header). The
	// engine then also reads the part through it in pieces of whole
	// arrays (an .npz member copied, a Parquet file written in one
	// pass); the bytes are those ReadRows gives.
	NPYRows bool
	// NPYFile: each output of the sink that holds one part is that
	// part's array as an .npy file, byte for byte what np.save writes
	// for the header of Output.DType (shape () if Output.ZeroD). Where a
	// source's part already is such an array (an .npy member, an Arrow
	// column whose data is the .npy data) the engine writes it there
	// itself, without the Writer: the same bytes.
	NPYFile bool
}

// Seeks is when a sink's writer seeks back in its output.
type Seeks int

const (
	SeeksNever       Seeks = iota // the writer only appends
	SeeksWithoutRows              // only when Output.Rows is unknown (-1)
	SeeksAlways                   // anywhere, always
)

// SourceSpec is a format's job source.
type SourceSpec struct {
	Summary string // one line for `npyflow list`
	Doc     string // a paragraph for `npyflow list TYPE` and the schema
	// Options is the zero value of the source's options struct (not a
	// pointer), which embeds [SourceOptions] first. Its fields' tags
	// declare each option (see package job's FieldsOf): the YAML key
	// (opt), default, enum, min and max, doc, and the flag of `npyflow
	// convert` (flag), all generated into the schema, help and flags.
	Options any
	// New makes the source of one job component from its options (a
	// pointer to a value of Options' type, checked against the tags).
	// An error is about the options; the engine names the component.
	New func(opts any) (Source, error)
}

// SinkSpec is a format's job sink.
type SinkSpec struct {
	Summary string
	Doc     string
	// Options is the zero value of the sink's options struct, which
	// embeds [SinkOptions] first.
	Options any
	// New makes the sink of one job component from its options for rows
	// of the layout in. An error says why the format cannot hold such
	// rows ("a toy file holds float64 values, not int32"); the engine
	// names the component and its input.
	New func(opts any, in Layout) (Sink, error)
}

// SourceOptions are the options every file source has, embedded first in
// a format's source options struct. The engine reads them; a format
// normally ignores them.
type SourceOptions struct {
	Paths      []string `opt:"paths,required" check:"pattern" doc:"files to read: paths or patterns with *, ?, [abc], ** (any directories) and captures like runs/{run_id}/frame_{step:int}.npy that become columns; relative to the job file; '-' alone reads standard input (copied to a temporary file when the job is planned; not in a sharded run)"`
	Exclude    []string `opt:"exclude" check:"exclude" doc:"patterns of files to skip; one without '/' matches the base name"`
	Column     string   `opt:"column" default:"value" doc:"the column name of a plain (non-record) array when captures add columns next to it"`
	AllowEmpty bool     `opt:"allow_empty" default:"false" doc:"allow a pattern to match no file (by default that is an error)"`
}

// FileSource returns o: an options struct embedding SourceOptions has
// this method, which is how the engine finds them.
func (o *SourceOptions) FileSource() *SourceOptions { return o }

// SinkPath is the path option of every file sink.
type SinkPath struct {
	Path string `opt:"path,required" check:"template" doc:"the output file; with {stem}, {name}, {dir}, {member}, {array}, {source}, {index} or a capture name in it, one file per input part; relative to the job file"`
}

// OutPath is the path option, as written in the job.
func (o *SinkPath) OutPath() string { return o.Path }

// WritesDataset reports false: a file sink writes files, not a dataset
// directory of part files.
func (o *SinkPath) WritesDataset() bool { return false }

// SinkOptions are the options every file sink has, embedded first in a
// format's sink options struct.
type SinkOptions struct {
	SinkPath
	Mode string `opt:"mode" enum:"overwrite,error_if_exists,skip_existing" default:"overwrite" doc:"what to do when an output exists: overwrite it, fail, or leave it alone (and skip writing it)"`
}

// OutMode is the mode option.
func (o *SinkOptions) OutMode() string { return o.Mode }

// Layout is the layout of rows: each row holds prod(Shape) values of
// DType, in C order and native byte order (DType.Native()); a record
// dtype's fields at their offsets. Shape is the row shape: an array's
// shape less its first axis.
type Layout struct {
	DType *npyio.DType
	Shape []int
}

// RowSize is the bytes of one row.
func (l Layout) RowSize() int {
	n := l.DType.Size
	for _, d := range l.Shape {
		n *= d
	}
	return n
}

// String is the layout as the engine's messages show it: "<f8" or
// "<i4, row shape (3,)".
func (l Layout) String() string {
	if len(l.Shape) == 0 {
		return l.DType.String()
	}
	return fmt.Sprintf("%s, row shape %s", l.DType, npyio.FormatShape(l.Shape))
}

// File is an open input file, random access. Its ReadAt is safe for
// concurrent use.
type File interface {
	io.ReaderAt
	Size() int64 // bytes, when it was opened
}

// Input is one input of a source: a file, or for a Caps.Dir format a
// directory.
type Input struct {
	// Name is the input as the user named it (a path or URL). A Dir
	// format opens it itself; others use File.
	Name string
	// File is the open file (nil for a Dir format). The engine opened it
	// and closes it after [Handle.Close] returns.
	File File
}

// Source is a format's reader, made once per job source ([SourceSpec].New)
// and used by every file of it, possibly from several goroutines at once.
type Source interface {
	// Open parses what in holds (its header, an archive's directory)
	// once: the engine lists the parts of the input and reads each of
	// them through the returned handle, then closes it. An error is about
	// the input's content ("not a toy file"): the engine prefixes the
	// input's name, so it need not name it.
	Open(ctx context.Context, in Input) (Handle, error)
}

// Handle is one open, parsed input.
type Handle interface {
	// Parts lists the input's parts: one for a file that is one array,
	// one per array of an archive. The engine does not modify them.
	Parts() []Part
	// OpenPart opens the part of that member ("" for a file that is one
	// array) as a reader of its rows in its layout: Part.Header's dtype
	// in native byte order and its shape less the first axis. OpenPart
	// is safe for concurrent use: the engine may read several parts of a
	// handle at once, each reader from one goroutine. If the reader is an
	// io.Closer, the engine closes it when done, before the handle.
	OpenPart(ctx context.Context, member string) (RowReader, error)
	// Close releases the handle; no reader of it is used afterwards.
	Close() error
}

// Part is one array of an input.
type Part struct {
	// Member names the part in its input ("" for a file that is one
	// array): a job's {member}, and what OpenPart is given.
	Member string
	// Array is the array's own name when Member is empty (a table
	// file's one column): a job's {array}. "": the input's stem.
	Array string
	// Header is the part's dtype (in any byte order) and shape; its
	// first axis counts the rows (a 0-d array is one row).
	Header *npyio.Header
	// Size is the part's bytes in its input, for progress and the
	// scheduling of sharded runs (0: the input's size).
	Size int64
}

// RowReader reads the rows of one part.
type RowReader interface {
	// ReadRows fills dst, whose length is a multiple of the row size,
	// with whole rows and returns how many; 0, io.EOF after the last.
	// dst is the engine's: the reader keeps no reference to it after
	// returning. An error other than io.EOF ends the run; the engine
	// prefixes the input's and part's names.
	ReadRows(dst []byte) (int, error)
}

// Output is one output file (or, for a Caps.Dir format, directory) of a
// sink, which the engine created: it commits it after [Writer.Close]
// (renaming it into place, finishing an upload) or discards it when the
// run fails. A writer never closes File.
type Output struct {
	// Name is the final name of the output, for messages only.
	Name string
	// File is where the bytes go (nil for a Dir format). It seeks back
	// only if the format's Caps.SeeksBack says so.
	File io.WriteSeeker
	// Dir is the directory to write into, for a Dir format: a staging
	// directory renamed at the commit, or a bucket prefix.
	Dir string
	// Rows is the rows the output will get, when the plan knows them
	// (no filter between); -1 if not.
	Rows int64
	// DType is the dtype to store the rows as: the layout's, or, when
	// one source feeds the sink and the output holds one part, the
	// part's own dtype as stored (its byte order), which a format that
	// keeps byte orders writes. The rows still arrive in native order.
	DType *npyio.DType
	// ZeroD: the output holds one 0-d input (shape ()) whose one row
	// reached the sink through transforms keeping every row; a format
	// that records shapes writes it 0-d, as numpy saves np.load of it.
	ZeroD bool
}

// Sink is a format's writer, made once per job sink ([SinkSpec].New).
// The engine calls it from one goroutine.
type Sink interface {
	// Create starts writing out; the rows come in the layout the sink
	// was made for. An error is about the output; the engine prefixes
	// its name.
	Create(ctx context.Context, out Output) (Writer, error)
}

// Writer writes the rows of one output.
type Writer interface {
	// WriteRows writes n rows held in rows (n times the row size). rows
	// is the engine's, valid only until WriteRows returns.
	WriteRows(rows []byte, n int) error
	// Close finishes the output (a header's count patched in, a footer
	// written). A Writer that got no rows still writes a valid, empty
	// output.
	Close() error
}

// Inspector reads what an input holds without its data, for `npyflow
// inspect`.
type Inspector interface {
	// Inspect describes in, shown as in.Name; opts is a pointer to the
	// format's source options (the flags of inspect, such as a member
	// to pick, set as in a conversion), or nil if it has no source.
	Inspect(ctx context.Context, in Input, opts any) (inspect.Info, error)
}

// InspectorFunc is a function that is an Inspector.
type InspectorFunc func(ctx context.Context, in Input, opts any) (inspect.Info, error)

// Inspect calls f.
func (f InspectorFunc) Inspect(ctx context.Context, in Input, opts any) (inspect.Info, error) {
	return f(ctx, in, opts)
}

var (
	mu        sync.Mutex
	formats   []*Format
	listeners []func(*Format)
)

// Register makes a format known to npyflow. It panics if f lacks a name,
// an extension or both a source and a sink, or if the name or an
// extension is another registered format's: a format registers in an
// init function, and either is a bug. (The engine also panics, when it
// adopts the format, if the options structs do not embed SourceOptions
// and SinkOptions.)
func Register(f *Format) {
	mu.Lock()
	if f.Name == "" || len(f.Exts) == 0 || f.Source == nil && f.Sink == nil {
		mu.Unlock()
		panic(fmt.Sprintf("format: format %q needs a name, an extension and a source or a sink", f.Name))
	}
	for _, g := range formats {
		if g.Name == f.Name {
			mu.Unlock()
			panic(fmt.Sprintf("format: format %q registered twice", f.Name))
		}
		for _, e := range append(slices.Clone(f.Exts), f.Aliases...) {
			if slices.Contains(g.Exts, e) || slices.Contains(g.Aliases, e) {
				mu.Unlock()
				panic(fmt.Sprintf("format: extension %s of format %q is format %q's", e, f.Name, g.Name))
			}
		}
	}
	formats = append(formats, f)
	ls := slices.Clone(listeners)
	mu.Unlock()
	for _, l := range ls {
		l(f)
	}
}

// Formats returns the formats registered here, in registration order.
func Formats() []*Format {
	mu.Lock()
	defer mu.Unlock()
	return slices.Clone(formats)
}

// OnRegister calls fn with every format registered so far, then with
// each one registered later, as [Register] adds it. It is how an engine
// adopts the formats (npyflow's pipeline calls it once, in its init).
func OnRegister(fn func(*Format)) {
	mu.Lock()
	past := slices.Clone(formats)
	listeners = append(listeners, fn)
	mu.Unlock()
	for _, f := range past {
		fn(f)
	}
}
