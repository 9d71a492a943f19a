package parquetio

import (
	"fmt"
	"io"
	"runtime"
	"strings"
	"unicode/utf8"

	"github.com/npyflow/npyflow/arrowconv"
)

// ReadOptions configures a [Reader]. The zero value (or nil) is the
// default: nulls are NaN in float columns, NaT in time columns and refused
// elsewhere.
type ReadOptions struct {
	// Fill gives the value written where a column is null, by top-level
	// column name (or dotted path of a leaf of a group): Go integers,
	// floats and bools, or strings (parsed for numeric, bool and time
	// columns; the value itself for string and bytes columns). A fill
	// replaces NaN and NaT too. The width of a string column of a foreign
	// file grows to hold its fill value.
	Fill map[string]any
	// Validity adds, next to each of these top-level columns of a foreign
	// file ("*": every nullable one), a bool field named
	// arrowconv.ValidityName(column) ("<column>_valid") that is false where
	// the column is null: a flat column, a group (struct) or a list of
	// one length (a null list). Inside a group column, each OPTIONAL
	// field x (at any depth) gets a bool field "x_valid" right after it,
	// inside the struct, false where x has no value (x or a group around
	// it is null): numpy's arr["st"]["x_valid"]. Null slots hold the fill
	// value, NaN, NaT or zero bytes. A list column of one length also
	// gets an element validity field arrowconv.ItemsValidityName(column)
	// ("<column>_items_valid"), a bool subarray of the list's shape right
	// after "<column>_valid", false where an element (or the list) is
	// null: named columns always, "*" those whose elements are OPTIONAL.
	// Without it, nulls inside a list that is not null are values of the
	// list: NaN, NaT, the fill value or refused.
	Validity []string
	// Decimal selects how DECIMAL columns of foreign files are read:
	// arrowconv.DecimalFloat64 (the default, f8 correctly rounded) or
	// arrowconv.DecimalScaledInt64 (exact int64 value*10^scale, the field
	// renamed arrowconv.ScaledName(name, scale); precision above 18 is
	// refused).
	Decimal arrowconv.DecimalMode
	// Columns are the top-level columns to read, in this order (nil:
	// every column). Columns left out are not mapped, so a column numpy
	// has no type for (a MAP, a list of varying length) does not stop the
	// others. With Columns, a file npyflow wrote is mapped from its
	// Parquet types like any other.
	Columns []string
	// Threads caps the goroutines that check and decode column chunks at
	// once: 0 means GOMAXPROCS, 1 decodes on the caller's goroutine alone.
	// The values read are the same for every setting.
	Threads int
}

// threads is the number of decoding goroutines (ReadOptions.Threads).
func (o *ReadOptions) threads() int {
	if o != nil && o.Threads > 0 {
		return o.Threads
	}
	return runtime.GOMAXPROCS(0)
}

// selects reports whether only some columns are read.
func (o *ReadOptions) selects() bool { return o != nil && o.Columns != nil }

// validityNames are the columns named for validity fields ("*" left out).
func (o *ReadOptions) validityNames() []string {
	if o == nil {
		return nil
	}
	var out []string
	for _, v := range o.Validity {
		if v != "*" {
			out = append(out, v)
		}
	}
	return out
}

// scaled reports whether decimals are read as scaled int64.
func (o *ReadOptions) scaled() bool {
	return o != nil && o.Decimal == arrowconv.DecimalScaledInt64
}

// validityFor reports whether top-level column name gets a validity
// field (nullable: whether the file lets it hold nulls).
func (o *ReadOptions) validityFor(name string, nullable bool) bool {
	if o == nil {
		return false
	}
	for _, v := range o.Validity {
		if v == name || v == "*" && nullable {
			return true
		}
	}
	return false
}

// NewReaderOptions opens the Parquet file r of size size as [NewReader]
// does, with options.
func NewReaderOptions(r io.ReaderAt, size int64, opts *ReadOptions) (*Reader, error) {
	return newReader(r, size, opts)
}

// fillFor returns the fill value given for the leaf at path, if any.
func (o *ReadOptions) fillFor(path []string) (any, bool) {
	if o == nil {
		return nil, false
	}
	for k := len(path); k > 0; k-- {
		if v, ok := o.Fill[strings.Join(path[:k], ".")]; ok {
			return v, true
		}
	}
	return nil, false
}

// checkFill refuses fill keys that name no column.
func (o *ReadOptions) checkFill(s *Schema) error {
	if o == nil {
		return nil
	}
	for k := range o.Fill {
		if !s.hasColumn(k) {
			return fmt.Errorf("parquetio: a fill value for %q, which is no column of the file", k)
		}
	}
	for _, k := range o.Validity {
		if k != "*" && !s.hasColumn(k) {
			return fmt.Errorf("parquetio: a validity field for %q, which is no column of the file", k)
		}
	}
	return nil
}

// fillWidth is the width (characters or bytes) a string column needs for
// its fill value.
func fillWidth(v any, chars bool) int {
	switch x := v.(type) {
	case string:
		if chars {
			return utf8.RuneCountInString(x)
		}
		return len(x)
	case []byte:
		return len(x)
	}
	return 0
}
