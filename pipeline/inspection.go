package pipeline

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/npyflow/npyflow/internal/storage"
	"github.com/npyflow/npyflow/pipeline/inspect"
	"github.com/npyflow/npyflow/pipeline/internal/foreign"
	"github.com/npyflow/npyflow/pipeline/job"
)

// Inspect reads what the file name holds without reading its data (see
// package inspect): the file's format is recognized by its first bytes
// (each format's Magic), else by its extension. [StdinName] ("-") reads
// standard input. The options o (nil: none) that apply are the format's
// source options with a flag, as [Convert] applies them: for a Parquet or
// Arrow file, the options of reading files other tools wrote (o.Fill,
// o.Validity, o.Decimal, o.Columns: convert's --fill, --validity,
// --decimal and --columns) give the mapping a conversion would, by the
// same code: the columns read in their order, scaled decimals under
// their field names, validity fields, and which columns would still be
// refused. An option of another format's source is refused, as by
// Convert. Errors do not repeat the file's name.
func Inspect(ctx context.Context, name string, o *ConvertOptions) (inspect.Info, error) {
	opts := ConvertOptions{}
	if o != nil {
		opts = *o
	}
	display := name
	var format *Format
	if name == StdinName {
		tmp, f, cleanup, err := spoolStdin(ctx, opts.Stdin)
		if err != nil {
			return nil, err
		}
		defer cleanup()
		name, format = tmp, f
	}
	if dir := FormatOf(name); format == nil && dir != nil && dir.InspectPath != nil {
		d, err := componentDef(job.Source, "in", dir.Source, opts.Flags, false)
		if err != nil {
			return nil, err
		}
		d.Options["paths"] = []string{"-"}
		src, err := job.NewComponent("inspect", d)
		if err != nil {
			return nil, conversionError(name, "", err)
		}
		return dir.InspectPath(ctx, name, display, src)
	}
	f, err := storage.Open(ctx, name)
	if err != nil {
		return nil, bare(err)
	}
	defer f.Close()
	if byExt := FormatOf(name); format == nil && byExt != nil && byExt.Inspect != nil && len(byExt.Magic) == 0 {
		format = byExt // known by its name alone: a Zarr .zip store starts like an .npz
	}
	if format == nil {
		format, _ = sniff(f, f.Size())
	}
	if format == nil {
		format = FormatOf(name)
	}
	if format == nil || format.Inspect == nil {
		return nil, errors.New("not a file npyflow can inspect (its first bytes are no " + magicList() + " magic)")
	}
	d, err := componentDef(job.Source, "in", format.Source, opts.Flags, false)
	if err != nil {
		return nil, err
	}
	d.Options["paths"] = []string{"-"}
	src, err := job.NewComponent("inspect", d)
	if err != nil {
		return nil, conversionError(name, "", err)
	}
	return format.Inspect(ctx, f, display, src)
}

// InspectFlags are the options of `npyflow inspect` besides --json: the
// conversion options that change how Parquet and Arrow files map to
// numpy ([ConvertFlags] entries of foreign.Fields), set on a
// [ConvertOptions] for [Inspect].
func InspectFlags() []Flag {
	var out []Flag
	for _, f := range ConvertFlags() {
		if slices.ContainsFunc(foreign.Fields(), func(fd job.Field) bool { return fd.Flag == f.Name }) {
			out = append(out, f)
		}
	}
	return out
}

// componentDef is the definition of a component of spec with the flags
// given (flag: command-line text) that its fields have; a flag no field
// of spec has is refused if a source of another format has it (sources
// only: an input's options must apply to it). withDefaults adds convert's
// defaults (Field.ConvertDefault).
func componentDef(kind job.Kind, name string, spec *job.Spec, flags map[string]string, withDefaults bool) (job.Def, error) {
	d := job.Def{Kind: kind, Name: name, Options: map[string]any{}, Origins: map[string]string{}, Checked: map[string]bool{}}
	if spec == nil {
		return d, fmt.Errorf("pipeline: no %s", kind)
	}
	d.Type = spec.Type
	for _, flag := range slices.Sorted(maps.Keys(flags)) {
		text := flags[flag]
		if text == "" {
			continue // the default
		}
		set := false
		for _, f := range spec.Fields {
			if f.Flag != flag {
				continue
			}
			v, err := f.ParseFlag(text)
			if err != nil {
				return d, &optionError{err.Error()}
			}
			d.Options[f.Name] = v
			d.Origins[f.Name] = "--" + flag + " " + text
			d.Checked[f.Name] = true
			set = true
		}
		if !set && kind == job.Source {
			if inputs := flagFormats(flag); len(inputs) > 0 {
				return d, optionErrorf("--%s applies to %s inputs only", flag, strings.Join(inputs, " and "))
			}
		}
	}
	if withDefaults {
		for _, f := range spec.Fields {
			if _, ok := d.Options[f.Name]; !ok && f.ConvertDefault != nil {
				d.Options[f.Name] = f.ConvertDefault
			}
		}
	}
	return d, nil
}
