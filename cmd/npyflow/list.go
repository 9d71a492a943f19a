package main

import (
	"flag"
	"fmt"
	"strings"

	"github.com/npyflow/npyflow/pipeline"
	"github.com/npyflow/npyflow/pipeline/job"
)

func init() {
	register("list", "list sources, transforms and sinks; npyflow list TYPE shows a component's options", runList)
}

var kinds = []job.Kind{job.Source, job.Transform, job.Sink}

// runList prints the component registry: every type with its summary, or
// one component's options with types, defaults and documentation.
func runList(e *env) error {
	fs := flag.NewFlagSet("list", flag.ContinueOnError)
	args, err := parseFlags(fs, e.args)
	if err != nil {
		return err
	}
	switch len(args) {
	case 0:
		for _, k := range kinds {
			fmt.Fprintf(e.stdout, "%ss:\n", k)
			for _, s := range job.Specs(k) {
				fmt.Fprintf(e.stdout, "  %-10s %s\n", s.Type, s.Summary)
			}
		}
		fmt.Fprintln(e.stdout, "\nformats (npyflow convert, by extension):")
		for _, f := range pipeline.Formats() {
			fmt.Fprintf(e.stdout, "  %-10s %s (%s)\n", f.Name, f.Summary, strings.Join(f.Exts, ", "))
		}
		fmt.Fprintln(e.stdout, "\nnpyflow list TYPE (or KIND.TYPE, like sink.npy) shows a component's options.")
		return nil
	case 1:
	default:
		return usagef("want at most one component type")
	}
	name := args[0]
	var found []*job.Spec
	for _, k := range kinds {
		typ := name
		if kind, t, ok := strings.Cut(name, "."); ok {
			if strings.TrimSuffix(kind, "s") != k.String() {
				continue
			}
			typ = t
		}
		if s := job.Lookup(k, typ); s != nil {
			found = append(found, s)
		}
	}
	if len(found) == 0 {
		return usagef("no component type %q; run npyflow list", name)
	}
	for i, s := range found {
		if i > 0 {
			fmt.Fprintln(e.stdout)
		}
		printSpec(e, s)
	}
	return nil
}

func printSpec(e *env, s *job.Spec) {
	fmt.Fprintf(e.stdout, "%s %s: %s\n", s.Kind, s.Type, s.Summary)
	if s.Doc != "" {
		fmt.Fprintf(e.stdout, "  %s\n", s.Doc)
	}
	fmt.Fprintln(e.stdout, "options:")
	for _, f := range s.Fields {
		var tags []string
		tags = append(tags, f.Type.String())
		if f.Required {
			tags = append(tags, "required")
		}
		if f.Default != nil {
			tags = append(tags, fmt.Sprintf("default %v", f.Default))
		}
		if f.Enum != nil {
			tags = append(tags, "one of "+strings.Join(f.Enum, ", "))
		}
		if f.Flag != "" {
			tags = append(tags, "convert --"+f.Flag)
		}
		fmt.Fprintf(e.stdout, "  %s (%s)\n", f.Name, strings.Join(tags, "; "))
		if f.Doc != "" {
			fmt.Fprintf(e.stdout, "      %s\n", f.Doc)
		}
	}
}
