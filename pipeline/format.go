package pipeline

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/npyflow/npyflow/internal/storage"
	"github.com/npyflow/npyflow/pipeline/format"
	"github.com/npyflow/npyflow/pipeline/inspect"
	"github.com/npyflow/npyflow/pipeline/job"
)

// Format is one file format npyflow reads and writes, registered once
// ([RegisterFormat]), the way image.RegisterFormat declares an image
// format: its names, how its files start, its job source and sink (their
// options declared once, as a tagged struct each, [job.Spec].Options: a
// field's flag tag is its name on convert's command line), how to
// inspect a file. `npyflow convert`,
// [Convert], [Inspect], `npyflow list`, `validate`, the JSON schema and
// shell completion are all generated from these values: nothing else
// names a format.
//
// A Format is the engine's view of a format. A format outside package
// pipeline implements the public contract of package
// github.com/npyflow/npyflow/pipeline/format and registers there
// (format.Register); the engine adopts each such format as a Format
// (format_contract.go): the .npy format (package npyformat) among the
// built-in ones, the others after them. The other built-in formats still
// fill a Format in directly, with the engine's own readers and sinks and
// their fast paths (copy.go).
type Format struct {
	Name    string   // the format, and the type of its job source and sink: "npy"
	Exts    []string // lower-case file extensions, with the dot; the first is the usual one
	Aliases []string // extensions also recognized but not listed (.pq)
	Magic   []Magic  // how its files start, for standard input and inspect
	Summary string
	// Caps is what the format can do (archive, table, directory, drops
	// time zones): the engine decides from it, never from the name.
	Caps format.Caps
	// Source and Sink are the format's job components; their Impl is the
	// engine's builder (see fileSourceSpec and the sinks), their Options
	// the struct of their options (options.go), which embeds what every
	// file source or sink has.
	Source, Sink *job.Spec
	// Inspect reads what the file f (of f.Size() bytes, shown as name)
	// holds without its data, under the source options src (the flags of
	// inspect, such as --columns, as a component of the format's source).
	Inspect func(ctx context.Context, f storage.File, name string, src *job.Component) (inspect.Info, error)
	// InspectPath is Inspect for a Dir format: it gets the path (name),
	// not an open file, and the name to show (display).
	InspectPath func(ctx context.Context, name, display string, src *job.Component) (inspect.Info, error)

	contract *format.Format // the contract format adapted, if it is one
}

// Magic is how files of a format start (the contract's).
type Magic = format.Magic

var (
	formatsMu sync.RWMutex
	formats   []*Format
)

// RegisterFormat adds a format, and its source and sink to the job
// component registry. It is the engine's: a format package calls
// format.Register. It panics if the name or an extension is taken, or
// if the source's or sink's options struct lacks the options every file
// source or sink has: a format registers in an init function, and either
// is a bug.
func RegisterFormat(f *Format) {
	formatsMu.Lock()
	defer formatsMu.Unlock()
	for _, g := range formats {
		if g.Name == f.Name {
			panic(fmt.Sprintf("pipeline: format %q registered twice", f.Name))
		}
		for _, e := range append(slices.Clone(f.Exts), f.Aliases...) {
			if slices.Contains(g.Exts, e) || slices.Contains(g.Aliases, e) {
				panic(fmt.Sprintf("pipeline: extension %s of format %q is format %q's", e, f.Name, g.Name))
			}
		}
	}
	for _, spec := range []*job.Spec{f.Source, f.Sink} {
		if spec != nil {
			if !formatOptions(spec) {
				panic(fmt.Sprintf("pipeline: the %s of format %q declares no options struct embedding the file %s's (job.Spec.Options)", spec.Kind, f.Name, spec.Kind))
			}
			spec.Type = f.Name
			job.Register(spec)
		}
	}
	formats = append(formats, f)
}

// formatOptions reports whether spec's options struct has the options
// every file source (fileSourceOpts) or sink (path and mode) has.
func formatOptions(spec *job.Spec) bool {
	if spec.Options == nil {
		return false
	}
	o := reflect.New(reflect.TypeOf(spec.Options)).Interface()
	if spec.Kind == job.Source {
		_, ok := o.(interface{ FileSource() *fileSourceOpts })
		return ok
	}
	_, ok := o.(interface {
		OutPath() string
		OutMode() string
	})
	return ok
}

// formatNamed returns the registered format of that name, or nil.
func formatNamed(name string) *Format {
	for _, f := range Formats() {
		if f.Name == name {
			return f
		}
	}
	return nil
}

// Formats returns the registered file formats, in registration order.
func Formats() []*Format {
	formatsMu.RLock()
	defer formatsMu.RUnlock()
	return slices.Clone(formats)
}

// FormatOf returns the format of a path by its extension, or nil.
func FormatOf(path string) *Format {
	ext := strings.ToLower(filepath.Ext(storage.Path(path)))
	for _, f := range Formats() {
		if slices.Contains(f.Exts, ext) || slices.Contains(f.Aliases, ext) {
			return f
		}
	}
	return nil
}

// sniff returns the format of the file r (of size bytes) by its first
// bytes, and the extension that names it; nil if no format's magic
// matches. Prefixes at the start are tried first, then those that may
// follow a user block (a MAT-file v7.3 is an HDF5 file whose user block
// starts "MATLAB").
func sniff(r io.ReaderAt, size int64) (*Format, string) {
	var head [128]byte
	n, _ := r.ReadAt(head[:], 0)
	for off := int64(0); off == 0 || off+8 <= size && off <= 1<<20; off = max(512, 2*off) {
		for _, f := range Formats() {
			for _, m := range f.Magic {
				buf := head[:n]
				if off > 0 && m.UserBlock {
					buf = make([]byte, len(m.Prefix))
					k, _ := r.ReadAt(buf, off)
					buf = buf[:k]
				} else if off > 0 {
					continue
				}
				if bytes.HasPrefix(buf, []byte(m.Prefix)) {
					if m.Ext != "" {
						return f, m.Ext
					}
					return f, f.Exts[0]
				}
			}
		}
	}
	return nil, ""
}

// formatList is ".npy, .npz, ... or .mat" for messages.
func formatList() string {
	var exts []string
	for _, f := range Formats() {
		exts = append(exts, f.Exts...)
	}
	return strings.Join(exts[:len(exts)-1], ", ") + " or " + exts[len(exts)-1]
}

// magicList names the formats' magic for messages: "Arrow IPC, .npy, ...".
func magicList() string {
	var names []string
	for _, f := range Formats() {
		if len(f.Magic) > 0 {
			names = append(names, f.Name)
		}
	}
	return strings.Join(names, ", ")
}

// Flag is one command-line option of a conversion, generated from the
// source and sink options that carry its name ([job.Field].Flag), so the
// flag, the job option and its documentation cannot drift apart.
type Flag struct {
	Name    string        // "row-group-rows"
	Type    job.FieldType // String, Int, Bool or StringList (comma-separated)
	Default any           // as the flag shows it; nil for none
	Doc     string        // the help line
	// Options are the job options behind the flag: "sink parquet.row_group_rows".
	Options []string
}

// runFlags are the options of a run rather than of a component: they
// apply to every output (RunOptions for jobs).
var runFlags = []Flag{
	{Name: "sync", Type: job.Bool, Default: false, Options: []string{"run --sync"},
		Doc: "flush OUT to disk before renaming it into place, so it survives a power cut (waits for the disk); without it OUT is still all-or-nothing if npyflow dies"},
}

// ConvertFlags returns the options of a conversion under their CLI
// names, sorted by name, generated from the formats' source and sink
// option declarations (plus the run options): the keys of
// [ConvertOptions].Flags.
func ConvertFlags() []Flag {
	byName := map[string]*Flag{}
	var order []string
	for _, fm := range Formats() {
		for _, spec := range []*job.Spec{fm.Source, fm.Sink} {
			if spec == nil {
				continue
			}
			for _, fd := range spec.Fields {
				if fd.Flag == "" {
					continue
				}
				doc := fd.FlagDoc
				if doc == "" {
					doc = fd.Doc
				}
				where := fmt.Sprintf("%s %s.%s", spec.Kind, spec.Type, fd.Name)
				f := byName[fd.Flag]
				if f == nil {
					typ, def := fd.Type, fd.Default
					if fd.FlagType != nil {
						typ = *fd.FlagType
					}
					if fd.FlagType != nil || fd.FlagDoc != "" {
						def = nil
					}
					f = &Flag{Name: fd.Flag, Type: typ, Default: def}
					byName[fd.Flag] = f
					order = append(order, fd.Flag)
				}
				f.Options = append(f.Options, where)
				if fd.FlagDoc == "" && len(fd.Enum) > 0 {
					vals := slices.DeleteFunc(slices.Clone(fd.Enum), func(v string) bool { return v == "" })
					doc += " (" + strings.Join(vals, ", ") + ")" // the flag package adds the default
				}
				// Formats sharing an option's text share its line:
				// "parquet and arrow input: ...".
				line := fmt.Sprintf("%s %s: %s", fm.Name, kindWord(spec.Kind), doc)
				if k := strings.Index(f.Doc, " "+kindWord(spec.Kind)+": "+doc); k >= 0 {
					start := strings.LastIndex(f.Doc[:k], "; ") + 1
					if !slices.Contains(strings.Split(strings.TrimSpace(f.Doc[start:k]), " and "), fm.Name) {
						f.Doc = f.Doc[:k] + " and " + fm.Name + f.Doc[k:]
					}
				} else if !strings.Contains(f.Doc, line) {
					if f.Doc != "" {
						f.Doc += "; "
					}
					f.Doc += line
				}
			}
		}
	}
	out := make([]Flag, 0, len(order)+len(runFlags))
	for _, n := range order {
		out = append(out, *byName[n])
	}
	out = append(out, runFlags...)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func kindWord(k job.Kind) string {
	if k == job.Source {
		return "input"
	}
	return "output"
}

// Set sets the option of o named by a CLI flag name (see [ConvertFlags])
// from its command-line text, checked as [job.Field.ParseFlag] checks it.
// A value no option behind the flag takes is refused here, wrapping
// [ErrOptions], in one line naming the flag (--compression "bogus": want
// ...); when the options behind a shared flag differ (--compression of
// each output format), [Convert] checks it against the one of OUT's
// format, with the same message.
func (o *ConvertOptions) Set(flag, value string) error {
	if flag == "sync" {
		b, err := strconv.ParseBool(value)
		if err != nil {
			return &optionError{fmt.Sprintf("--%s %q: want true or false", flag, value)}
		}
		o.Sync = b
		return nil
	}
	// The value must suit an option behind the flag; which one applies
	// is known once IN and OUT are: Convert checks the value for their
	// formats' options, with the same message.
	var errs []string
	for _, f := range Formats() {
		for _, spec := range []*job.Spec{f.Source, f.Sink} {
			if spec == nil {
				continue
			}
			for _, fd := range spec.Fields {
				if fd.Flag != flag {
					continue
				}
				if _, err := fd.ParseFlag(value); err != nil {
					if !slices.Contains(errs, err.Error()) {
						errs = append(errs, err.Error())
					}
					continue
				}
				if o.Flags == nil {
					o.Flags = map[string]string{}
				}
				o.Flags[flag] = value
				return nil
			}
		}
	}
	switch len(errs) {
	case 0:
		return fmt.Errorf("no conversion option --%s", flag)
	case 1:
		return &optionError{errs[0]} // no option behind the flag takes it
	}
	if o.Flags == nil {
		o.Flags = map[string]string{}
	}
	o.Flags[flag] = value // the formats' options differ: Convert says
	return nil
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
