// Package foreign holds the options of reading Parquet and Arrow files
// other tools wrote (fill values, validity fields, the decimal mode, the
// columns read), declared once as job source fields ([Fields]) and turned
// into parquetio's and arrowconv's options by one function each, for the
// parquet and arrow sources, convert and inspect alike.
package foreign

import (
	"fmt"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/npyflow/npyflow/arrowconv"
	"github.com/npyflow/npyflow/parquetio"
	"github.com/npyflow/npyflow/pipeline/job"
)

// Options are the options of reading Parquet and Arrow files other tools
// wrote, as a parquet or arrow source gives them ([FromComponent]); one
// mapping for both: parquetio.ReadOptions for Parquet, arrowconv's
// MapOptions for Arrow. A nil *Options reads with the defaults.
type Options struct {
	Fill        map[string]any // column -> value (text, parsed for the column's type)
	Validity    []string       // columns with a validity field, "*" for every nullable one
	Scaled      bool           // decimals as exact scaled int64
	StringChars int            // Arrow sources: width of strings without numpy metadata (0: a pass over the data)
	Columns     []string       // the top-level columns read, in this order (nil: all)
	Threads     int            // goroutines decoding (0: GOMAXPROCS), the engine's PlanOptions.Threads
}

// Project returns the schema of the columns read and their indexes in
// schema (nil: every column, schema itself).
func (o *Options) Project(schema *arrow.Schema) (*arrow.Schema, []int, error) {
	if o == nil || o.Columns == nil {
		return schema, nil, nil
	}
	var fields []arrow.Field
	var idx []int
	for _, name := range o.Columns {
		is := schema.FieldIndices(name)
		if len(is) == 0 {
			var names []string
			for _, f := range schema.Fields() {
				names = append(names, f.Name)
			}
			return nil, nil, fmt.Errorf("no column %q to read (columns: %s)", name, strings.Join(names, ", "))
		}
		if slices.Contains(idx, is[0]) {
			return nil, nil, fmt.Errorf("column %q selected twice", name)
		}
		idx = append(idx, is[0])
		fields = append(fields, schema.Field(is[0]))
	}
	md := schema.Metadata()
	return arrow.NewSchema(fields, &md), idx, nil
}

// FromSource reads the options of a parquet or arrow source (or of a
// conversion or inspection, given as one): so, and stringChars (Arrow
// sources; 0 otherwise).
func FromSource(so *SourceOptions, stringChars int64) *Options {
	o := &Options{Validity: so.Validity, Scaled: strings.EqualFold(so.Decimal, "scaled"), Columns: so.Columns, StringChars: int(stringChars)}
	for _, kv := range so.Fill {
		if o.Fill == nil {
			o.Fill = map[string]any{}
		}
		o.Fill[kv.Key] = kv.Value
	}
	return o
}

// Parquet is the options as parquetio's.
func (o *Options) Parquet() *parquetio.ReadOptions {
	if o == nil {
		return nil
	}
	ro := &parquetio.ReadOptions{Fill: o.Fill, Validity: o.Validity, Columns: o.Columns, Threads: o.Threads}
	if o.Scaled {
		ro.Decimal = arrowconv.DecimalScaledInt64
	}
	return ro
}

// Arrow is the options as arrowconv's, for schema (the columns of
// schema only: an .npz member is mapped column by column).
func (o *Options) Arrow(schema *arrow.Schema) *arrowconv.MapOptions {
	mo := &arrowconv.MapOptions{}
	if o == nil {
		return mo
	}
	mo.Threads = o.Threads
	if o.Scaled {
		mo.Decimal = arrowconv.DecimalScaledInt64
	}
	has := func(name string) bool { return schema.FieldIndices(name) != nil }
	for k, v := range o.Fill {
		if has(k) {
			if mo.Fill == nil {
				mo.Fill = map[string]any{}
			}
			mo.Fill[k] = v
		}
	}
	for _, v := range o.Validity {
		if v == "*" {
			mo.ValidityFields = true
		} else if has(v) {
			mo.Validity = append(mo.Validity, v)
		}
	}
	if o.StringChars > 0 {
		mo.StringWidths = map[string]int{}
		for _, f := range schema.Fields() {
			mo.StringWidths[f.Name] = o.StringChars
		}
	}
	return mo
}

// CheckArrowNames refuses options naming no column of schema (arrow
// filters them per column).
func (o *Options) CheckArrowNames(schema *arrow.Schema) error {
	if o == nil {
		return nil
	}
	for k := range o.Fill {
		if schema.FieldIndices(k) == nil {
			return fmt.Errorf("a fill value for %q, which is no column of the file", k)
		}
	}
	for _, v := range o.Validity {
		if v != "*" && schema.FieldIndices(v) == nil {
			return fmt.Errorf("a validity field for %q, which is no column of the file", v)
		}
	}
	return nil
}

// ArrowMapping maps schema to numpy with the options; when string widths
// or list lengths must come from the data, open gives the records to scan
// (the whole input).
// Options naming other columns are left out (see CheckArrowNames).
func (o *Options) ArrowMapping(schema *arrow.Schema, open func() (array.RecordReader, error)) (*arrowconv.Mapping, error) {
	m, err := arrowconv.MapSchema(schema, o.Arrow(schema))
	if err != nil {
		return nil, err
	}
	if m.NeedsScan() {
		rr, err := open()
		if err != nil {
			return nil, err
		}
		err = arrowconv.ScanRecords(m, rr)
		rr.Release()
		if err != nil {
			return nil, err
		}
	}
	if _, err := m.DType(); err != nil {
		return nil, err
	}
	return m, nil
}

// Fields are the options of reading Parquet and Arrow files other tools
// wrote ([SourceOptions]), for the flags of inspect.
func Fields() []job.Field { return job.FieldsOf(SourceOptions{}) }

var _ = registerFlagValues()

func registerFlagValues() bool {
	job.RegisterFlagValue("fill", fillValue)
	job.RegisterFlagValue("decimal", decimalValue)
	return true
}

// SourceOptions are the options of a parquet or arrow source that map
// other tools' files, embedded in their options structs.
type SourceOptions struct {
	Fill     []job.KV `opt:"fill" flag:"fill" flagtype:"list" flagvalue:"fill" flagdoc:"column=value,...: the value written where a column is null (numbers, true/false, text; a datetime in numpy's ISO form); without one, nulls in integer, bool, string and bytes columns are refused naming the column and its first null row" doc:"column: value written where the column is null (numbers, true/false, text); without one, nulls in integer, bool, string and bytes columns are refused naming the column and its first null row"`
	Validity []string `opt:"validity" flag:"validity" doc:"columns that get a bool field <column>_valid right after them, false where the column is null (a struct or list row too; the null slots hold the fill value, NaN, NaT or zeros); inside a struct column, each nullable field x gets x_valid right after it; a list column of one length also gets <column>_items_valid, a bool subarray of its shape, false where an element is null; * for every nullable column (and every list whose elements are nullable)"`
	Columns  []string `opt:"columns" flag:"columns" doc:"the top-level columns to read, in this order (default: all); the others are not mapped, so a column numpy has no type for (a map, a list of varying length) does not stop the rest; in a job, a source whose consumers are select and drop transforms (directly or through filter and cast) reads only the columns they keep"`
	Decimal  string   `opt:"decimal" enum:"f8,scaled" default:"f8" flag:"decimal" flagvalue:"decimal" doc:"DECIMAL columns as float64 correctly rounded (f8), or exactly as int64 holding value*10^scale in a field renamed <column>_x1e<scale> (scaled; precision 18 at most)"`
}

// ForeignOptions returns o, for the structs embedding it.
func (o *SourceOptions) ForeignOptions() *SourceOptions { return o }

// fillValue reads --fill column=value,...
func fillValue(text string) (any, error) {
	var out []job.KV
	for _, kv := range strings.Split(text, ",") {
		if kv = strings.TrimSpace(kv); kv == "" {
			continue
		}
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("want column=value, not %q", kv)
		}
		out = append(out, job.KV{Key: k, Value: v})
	}
	return out, nil
}

// decimalValue reads --decimal f8|scaled, in any case.
func decimalValue(text string) (any, error) {
	switch v := strings.ToLower(text); v {
	case "", "f8":
		return "f8", nil
	case "scaled":
		return v, nil
	}
	return nil, fmt.Errorf("want f8 or scaled")
}
