package pipeline

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

// foreignOptions are the options of reading Parquet and Arrow files other
// tools wrote (foreignReadFields in formats.go), as a job source or convert
// flags give them; one mapping for both: parquetio.ReadOptions for
// Parquet, arrowconv.MapOptions for Arrow.
type foreignOptions struct {
	fill        map[string]any // column -> value (text, parsed for the column's type)
	validity    []string       // columns with a validity field, "*" for every nullable one
	scaled      bool           // decimals as exact scaled int64
	stringChars int            // Arrow sources: width of strings without numpy metadata (0: a pass over the data)
	columns     []string       // the top-level columns read, in this order (nil: all)
}

// project returns the schema of the columns read and their indexes in
// schema (nil: every column, schema itself).
func (o *foreignOptions) project(schema *arrow.Schema) (*arrow.Schema, []int, error) {
	if o == nil || o.columns == nil {
		return schema, nil, nil
	}
	var fields []arrow.Field
	var idx []int
	for _, name := range o.columns {
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

// foreignFromComponent reads the options of a parquet or arrow source.
func foreignFromComponent(c *job.Component) *foreignOptions {
	o := &foreignOptions{validity: c.Strings("validity"), scaled: c.String("decimal") == "scaled", columns: c.Strings("columns")}
	if c.Type == "arrow" {
		o.stringChars = int(c.Int("string_chars"))
	}
	for _, kv := range c.Map("fill") {
		if o.fill == nil {
			o.fill = map[string]any{}
		}
		o.fill[kv.Key] = kv.Value
	}
	return o
}

// foreignForInput reads the options of reading Parquet and Arrow files
// of a conversion (or an inspection) of a file of format from: nil when
// none is given, an error when some is given for another format.
func foreignForInput(co *ConvertOptions, from string) (*foreignOptions, error) {
	if co == nil || len(co.Fill)+len(co.Validity)+len(co.Columns) == 0 && (co.Decimal == "" || strings.EqualFold(co.Decimal, "f8")) {
		return nil, nil
	}
	if from != "parquet" && from != "arrow" {
		return nil, optionErrorf("--fill, --validity, --decimal and --columns apply to Parquet and Arrow inputs only")
	}
	return foreignFromConvert(co)
}

// foreignFromConvert reads the options of a conversion: --fill
// column=value,..., --validity, --decimal.
func foreignFromConvert(co *ConvertOptions) (*foreignOptions, error) {
	o := &foreignOptions{validity: co.Validity, columns: co.Columns}
	switch strings.ToLower(co.Decimal) {
	case "", "f8":
	case "scaled":
		o.scaled = true
	default:
		return nil, optionErrorf("--decimal %q: want f8 or scaled", co.Decimal)
	}
	for _, kv := range co.Fill {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, optionErrorf("--fill %q: want column=value", kv)
		}
		if o.fill == nil {
			o.fill = map[string]any{}
		}
		o.fill[k] = v
	}
	return o, nil
}

// parquet is the options as parquetio's.
func (o *foreignOptions) parquet() *parquetio.ReadOptions {
	if o == nil {
		return nil
	}
	ro := &parquetio.ReadOptions{Fill: o.fill, Validity: o.validity, Columns: o.columns}
	if o.scaled {
		ro.Decimal = arrowconv.DecimalScaledInt64
	}
	return ro
}

// arrow is the options as arrowconv's, for schema (the columns of
// schema only: an .npz member is mapped column by column).
func (o *foreignOptions) arrow(schema *arrow.Schema) *arrowconv.MapOptions {
	mo := &arrowconv.MapOptions{}
	if o == nil {
		return mo
	}
	if o.scaled {
		mo.Decimal = arrowconv.DecimalScaledInt64
	}
	has := func(name string) bool { return schema.FieldIndices(name) != nil }
	for k, v := range o.fill {
		if has(k) {
			if mo.Fill == nil {
				mo.Fill = map[string]any{}
			}
			mo.Fill[k] = v
		}
	}
	for _, v := range o.validity {
		if v == "*" {
			mo.ValidityFields = true
		} else if has(v) {
			mo.Validity = append(mo.Validity, v)
		}
	}
	if o.stringChars > 0 {
		mo.StringWidths = map[string]int{}
		for _, f := range schema.Fields() {
			mo.StringWidths[f.Name] = o.stringChars
		}
	}
	return mo
}

// checkArrowNames refuses options naming no column of schema (arrow
// filters them per column).
func (o *foreignOptions) checkArrowNames(schema *arrow.Schema) error {
	if o == nil {
		return nil
	}
	for k := range o.fill {
		if schema.FieldIndices(k) == nil {
			return fmt.Errorf("a fill value for %q, which is no column of the file", k)
		}
	}
	for _, v := range o.validity {
		if v != "*" && schema.FieldIndices(v) == nil {
			return fmt.Errorf("a validity field for %q, which is no column of the file", v)
		}
	}
	return nil
}

// arrowMapping maps schema to numpy with the options; when string widths
// or list lengths must come from the data, open gives the records to scan
// (the whole input).
// Options naming other columns are left out (see checkArrowNames).
func (o *foreignOptions) arrowMapping(schema *arrow.Schema, open func() (array.RecordReader, error)) (*arrowconv.Mapping, error) {
	m, err := arrowconv.MapSchema(schema, o.arrow(schema))
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
