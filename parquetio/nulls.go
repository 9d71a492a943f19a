package parquetio

import "fmt"

// NullError is the error for a null in a column whose numpy type has no
// null (integers, bool, strings, bytes): float columns read nulls as NaN
// and time columns as NaT.
type NullError struct {
	Column string // dotted Parquet path
	DType  string // the numpy type
	Row    int64  // the first row found null
	Nulls  int64  // nulls of the column by its statistics, -1 if unknown
}

func (e *NullError) Error() string {
	n := "nulls"
	if e.Nulls > 0 {
		n = fmt.Sprintf("%d nulls (by its statistics)", e.Nulls)
	}
	return fmt.Sprintf("parquetio: column %s holds %s, the first in row %d, and numpy %s has no null: give a fill value (ReadOptions.Fill; convert --fill COLUMN=VALUE; fill on a job's source) or a validity field (ReadOptions.Validity; convert --validity COLUMN; validity on a job's source), or leave the column out", e.Column, n, e.Row, e.DType)
}
