package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"strings"

	"github.com/npyflow/npyflow/pipeline/inspect"

	"github.com/npyflow/npyflow/internal/storage"
	"github.com/npyflow/npyflow/pipeline"
)

func init() {
	usages["inspect"] = inspectUsage + inspectFormats() + inspectNotes
	register("inspect", "show what a file holds without reading its data: an .npy header, .npz members, a Parquet or Arrow schema, HDF5 datasets, MAT-file variables", runInspect)
}

const inspectUsage = `usage: npyflow inspect [--json] [--columns C,...] [--decimal f8|scaled] [--fill C=V,...] [--validity C,...|*] FILE

`

// inspectFormats names the formats inspect reads, from the registry.
func inspectFormats() string {
	var names []string
	for _, f := range pipeline.Formats() {
		if f.Inspect != nil || f.InspectPath != nil {
			names = append(names, f.Name)
		}
	}
	return "FILE is a file of one of the formats " + strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1] +
		"\n(recognized by its first bytes, else its extension; see npyflow list);\n"
}

const inspectNotes = `"-" reads standard input. Only headers and metadata are read:
  .npy      version, descr, shape, order, item size, data offset and size
  .npz      each member's header, compression and sizes
  .parquet  rows, and each column's numpy dtype and shape; for files other
            tools wrote, each column's Parquet type (DECIMAL(10,2), INT96,
            dictionary, nullable, null count) next to its numpy dtype, or
            why converting it would be refused
  .arrow    IPC format, rows, record batches, and each column's Arrow type
            next to its numpy dtype, or why it would be refused
For Parquet and Arrow files, --columns, --decimal, --fill and --validity
show the mapping convert gives under the same options (the same code).
  .h5       groups, datasets (dtype, shape, layout, chunking, filters) and
            attributes
  .mat      version, and each variable's class, MATLAB size, bytes and
            compression

flags:`

func runInspect(e *env) error {
	fs := flag.NewFlagSet("inspect", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print JSON")
	var opts pipeline.ConvertOptions
	addOptionFlags(fs, &opts, pipeline.InspectFlags())
	args, err := parseFlags(fs, e.args)
	if err != nil {
		return err
	}
	if len(args) != 1 {
		fmt.Fprint(e.stderr, usageText(fs))
		return usagef("inspect needs one FILE, got %d arguments", len(args))
	}
	name := args[0]
	ins, err := pipeline.Inspect(e.ctx, name, &opts)
	if err != nil {
		if errors.Is(err, pipeline.ErrOptions) {
			return usageError{err}
		}
		return fmt.Errorf("%s: %w", storage.Redact(name), trimPrefix(err))
	}
	if z, ok := ins.(*inspect.NPZInfo); ok {
		for i, m := range z.Members {
			if m.Error != "" {
				z.Members[i].Error = trimPrefix(errors.New(m.Error)).Error()
			}
		}
	}
	if *asJSON {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(ins)
	}
	ins.WriteText(e.stdout)
	return nil
}
