package pipeline

import (
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/npyflow/npyflow/internal/storage"
	"github.com/npyflow/npyflow/pipeline/job"
)

// The format registry: every file format npyflow reads and writes is one
// Format here, with one job source and one job sink of the same type in
// the component registry (registry.go). `npyflow convert`, [Convert],
// `npyflow list`, `validate`, the JSON schema and shell completion are
// all generated from these declarations: an option is declared once, as
// a [job.Field] of its source or sink, and its Flag is its name on the
// command line. A new format (hdf5, mat) is added by one Format entry
// plus its source and sink specs.

// Format is one file format.
type Format struct {
	Name    string   // the format and its job source and sink type: "npy"
	Exts    []string // lower-case file extensions, with the dot; the first is the usual one
	Summary string
}

var formats = []*Format{
	{Name: "npy", Exts: []string{".npy"}, Summary: "NumPy array file"},
	{Name: "npz", Exts: []string{".npz"}, Summary: "NumPy archive of arrays (np.savez)"},
	{Name: "parquet", Exts: []string{".parquet", ".pq"}, Summary: "Apache Parquet"},
	{Name: "arrow", Exts: []string{".arrow", ".arrows", ".feather", ".ipc"}, Summary: "Arrow IPC file (Feather v2) or stream (.arrows)"},
	{Name: "hdf5", Exts: []string{".h5", ".hdf5", ".he5"}, Summary: "HDF5 file (h5py, pure-Go reader and writer)"},
	{Name: "mat", Exts: []string{".mat"}, Summary: "MATLAB MAT-file (v7.3 HDF5, v7 and v6 Level 5)"},
}

// foreignReadFields are the options of reading Parquet and Arrow files
// other tools wrote, declared once: they are fields of the parquet and
// arrow job sources and, by their Flag, convert's --fill, --validity,
// --columns and --decimal (so validate, the schema, list and convert -h all show them).
// See foreignOptions (foreign.go) for what they become.
func foreignReadFields() []job.Field {
	return []job.Field{
		{Name: "fill", Type: job.StringMap, Flag: "fill", FlagType: &flagStringList,
			FlagDoc: "column=value,...: the value written where a column is null (numbers, true/false, text; a datetime in numpy's ISO form); without one, nulls in integer, bool, string and bytes columns are refused naming the column and its first null row",
			Doc:     "column: value written where the column is null (numbers, true/false, text); without one, nulls in integer, bool, string and bytes columns are refused naming the column and its first null row"},
		{Name: "validity", Type: job.StringList, Flag: "validity",
			Doc: "columns that get a bool field <column>_valid right after them, false where the column is null (a struct or list row too; the null slots hold the fill value, NaN, NaT or zeros); inside a struct column, each nullable field x gets x_valid right after it; a list column of one length also gets <column>_items_valid, a bool subarray of its shape, false where an element is null; * for every nullable column (and every list whose elements are nullable)"},
		{Name: "columns", Type: job.StringList, Flag: "columns",
			Doc: "the top-level columns to read, in this order (default: all); the others are not mapped, so a column numpy has no type for (a map, a list of varying length) does not stop the rest; in a job, a source whose consumers are select and drop transforms (directly or through filter and cast) reads only the columns they keep"},
		{Name: "decimal", Type: job.String, Default: "f8", Enum: []string{"f8", "scaled"}, Flag: "decimal",
			Doc: "DECIMAL columns as float64 correctly rounded (f8), or exactly as int64 holding value*10^scale in a field renamed <column>_x1e<scale> (scaled; precision 18 at most)"},
	}
}

var flagStringList = job.StringList

// Formats returns the registered file formats, in registry order.
func Formats() []*Format { return append([]*Format(nil), formats...) }

// FormatOf returns the format of a path by its extension, or nil.
func FormatOf(path string) *Format {
	ext := strings.ToLower(filepath.Ext(storage.Path(path)))
	for _, f := range formats {
		for _, e := range f.Exts {
			if e == ext {
				return f
			}
		}
	}
	return nil
}

// Source returns the job source spec of the format.
func (f *Format) Source() *job.Spec { return job.Lookup(job.Source, f.Name) }

// Sink returns the job sink spec of the format.
func (f *Format) Sink() *job.Spec { return job.Lookup(job.Sink, f.Name) }

// formatList is "want .npy, .npz, ..." for messages.
func formatList() string {
	var exts []string
	for _, f := range formats {
		for _, e := range f.Exts {
			if e != ".pq" && e != ".ipc" {
				exts = append(exts, e)
			}
		}
	}
	return strings.Join(exts[:len(exts)-1], ", ") + " or " + exts[len(exts)-1]
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
// option declarations (plus the run options). Each maps to the field of
// [ConvertOptions] with the same `flag` tag.
func ConvertFlags() []Flag {
	byName := map[string]*Flag{}
	var order []string
	for _, fm := range formats {
		for _, spec := range []*job.Spec{fm.Source(), fm.Sink()} {
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
						def = fd.FlagDefault
					}
					f = &Flag{Name: fd.Flag, Type: typ, Default: def}
					byName[fd.Flag] = f
					order = append(order, fd.Flag)
				}
				f.Options = append(f.Options, where)
				if fd.FlagDoc == "" && len(fd.Enum) > 0 {
					doc += " (" + strings.Join(fd.Enum, ", ")
					if fd.Default != nil {
						doc += fmt.Sprintf("; default %v", fd.Default)
					}
					doc += ")"
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
// from its command-line text: a list is comma-separated.
func (o *ConvertOptions) Set(flag, value string) error {
	v := reflect.ValueOf(o).Elem()
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		if t.Field(i).Tag.Get("flag") != flag {
			continue
		}
		f := v.Field(i)
		switch f.Kind() {
		case reflect.String:
			f.SetString(value)
		case reflect.Int:
			n, err := strconv.ParseInt(value, 0, 64)
			if err != nil {
				return fmt.Errorf("--%s %q: not an integer", flag, value)
			}
			f.SetInt(n)
		case reflect.Bool:
			b, err := strconv.ParseBool(value)
			if err != nil {
				return fmt.Errorf("--%s %q: not a boolean", flag, value)
			}
			f.SetBool(b)
		case reflect.Slice:
			f.Set(reflect.ValueOf(splitList(value)))
		}
		return nil
	}
	return fmt.Errorf("no conversion option --%s", flag)
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
