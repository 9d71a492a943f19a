package parquetio

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/big"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/schema"
)

// INT96 timestamps (Impala, Spark, Hive) are nanoseconds of the day and a
// Julian day: Impala's carry nanoseconds, Spark's microseconds (Spark's
// own precision) over a range far beyond datetime64[ns]'s years 1677 to
// 2262 (Spark writes years 1 to 294247 and beyond). The unit is chosen
// from the data, by a pass over the column before it is read (as the
// longest string is): datetime64[ns] when every value fits it; otherwise
// the finest of datetime64[us] and datetime64[ms] whose range holds every
// value, if no value has digits finer than that unit (else the column is
// refused, naming two values that cannot share a unit). pyarrow's
// coerce_int96_timestamp_unit makes the unit a reader's option (its
// default, ns, wraps the values beyond its range silently).

// int96Units are the units an INT96 column may read as, finest first,
// with their length in nanoseconds.
var int96Units = []struct {
	name  string
	nanos int64
}{{"ns", 1}, {"us", 1e3}, {"ms", 1e6}}

// int96Parts splits an INT96 timestamp into nanoseconds of the day and
// days since the Unix epoch (the Julian day is a signed 32-bit integer,
// as parquet-mr, Spark and Impala write it).
func int96Parts(v parquet.Int96) (nanos, days int64) {
	nanos = int64(binary.LittleEndian.Uint64(v[:8]))
	days = int64(int32(binary.LittleEndian.Uint32(v[8:]))) - julianUnixEpoch
	return nanos, days
}

// sparkWrapLow and sparkWrapHigh bound, in nanoseconds since the epoch,
// the INT96 values Spark writes for timestamps within 2440588 days (the
// Julian day of the epoch) of the top of the int64 microsecond range
// (years 285,000 to 294,247): Spark adds the epoch's Julian day to the
// microseconds in int64 arithmetic, which wraps there. Spark reads them
// back with the same arithmetic, so that parquet-testing's
// int96_from_spark.parquet holds 9089380393200000000 us (year 290000);
// read literally they would lie beyond int64 microseconds, before year
// 292,277 BC, where no writer puts a timestamp.
var (
	sparkWrapHigh = new(big.Int).Mul(big.NewInt(math.MinInt64), big.NewInt(1000))
	sparkWrapLow  = new(big.Int).Sub(sparkWrapHigh, new(big.Int).Mul(big.NewInt(julianUnixEpoch), big.NewInt(86400e9)))
	sparkWrap     = new(big.Int).Mul(new(big.Int).Lsh(big.NewInt(1), 64), big.NewInt(1000))
)

// int96In converts an INT96 timestamp to units of unitNanos nanoseconds
// since the Unix epoch: inRange is false if it overflows int64 (or would
// be NaT), exact false if it has digits finer than the unit.
func int96In(v parquet.Int96, unitNanos int64) (x int64, inRange, exact bool) {
	nanos, days := int96Parts(v)
	if d, ok := mulOK(days, 86400e9); ok {
		if s := d + nanos; (nanos >= 0) == (s >= d) {
			// Within int64 nanoseconds (years 1677 to 2262).
			q, rem := s/unitNanos, s%unitNanos
			if rem < 0 {
				q, rem = q-1, rem+unitNanos
			}
			return q, q != math.MinInt64, rem == 0
		}
	}
	t := new(big.Int).Mul(big.NewInt(days), big.NewInt(86400e9))
	t.Add(t, big.NewInt(nanos))
	if t.Cmp(sparkWrapLow) >= 0 && t.Cmp(sparkWrapHigh) < 0 {
		t.Add(t, sparkWrap)
	}
	q, rem := new(big.Int).DivMod(t, big.NewInt(unitNanos), new(big.Int))
	if !q.IsInt64() || q.Int64() == math.MinInt64 {
		return 0, false, rem.Sign() == 0
	}
	return q.Int64(), true, rem.Sign() == 0
}

// int96Date shows an INT96 timestamp for an error message.
func int96Date(v parquet.Int96) string {
	nanos, days := int96Parts(v)
	t := time.Unix(days*86400, 0).UTC()
	return fmt.Sprintf("%s plus %dns", t.Format("2006-01-02"), nanos)
}

// int96Field gives the INT96 leaves of column field f (pqarrow reads
// them as timestamp[ns]) the unit their values need (int96Unit), at any
// depth: path names f as arrowColumn's leaf map does, leafOf returns the
// Parquet leaf of such a path. Without data (describe) f is unchanged.
func (r *Reader) int96Field(f arrow.Field, path string, leafOf func(string) *schema.Column) (arrow.Field, error) {
	if r.noData {
		return f, nil
	}
	switch t := f.Type.(type) {
	case *arrow.StructType:
		fs := make([]arrow.Field, t.NumFields())
		changed := false
		for i := range fs {
			g, err := r.int96Field(t.Field(i), path+"."+t.Field(i).Name, leafOf)
			if err != nil {
				return f, err
			}
			fs[i], changed = g, changed || g.Type != t.Field(i).Type
		}
		if changed {
			f.Type = arrow.StructOf(fs...)
		}
	case *arrow.ListType:
		e, err := r.int96Field(t.ElemField(), path+"[]", leafOf)
		if err != nil {
			return f, err
		}
		if e.Type != t.Elem() {
			f.Type = arrow.ListOfField(e)
		}
	case *arrow.TimestampType:
		lc := leafOf(path)
		if lc == nil || lc.PhysicalType() != parquet.Types.Int96 {
			return f, nil
		}
		unit, err := r.int96Unit(lc.SchemaNode().(*schema.PrimitiveNode))
		if err != nil {
			return f, err
		}
		au := map[string]arrow.TimeUnit{"ns": arrow.Nanosecond, "us": arrow.Microsecond, "ms": arrow.Millisecond}[unit]
		f.Type = &arrow.TimestampType{Unit: au, TimeZone: t.TimeZone}
	}
	return f, nil
}

// int96Unit reads the INT96 column p and returns the unit its values
// read in (see above).
func (r *Reader) int96Unit(p *schema.PrimitiveNode) (string, error) {
	col := r.pf.MetaData().Schema.ColumnIndexByNode(p)
	if col < 0 {
		return "", fmt.Errorf("parquetio: column %s: not a leaf of the schema", p.Path())
	}
	// rangeU is the finest unit whose range holds every value so far
	// (far: the first value that needed it); fine[u] the first value
	// with digits finer than unit u, if any.
	rangeU := 0
	var far parquet.Int96
	var fine [3]*parquet.Int96
	for g := range r.fmd.RowGroups {
		if r.fmd.RowGroups[g].NumRows == 0 {
			continue
		}
		if _, err := r.chunkValues(g, col); err != nil {
			return "", err
		}
		cr, err := r.columnReader(g, col)
		if err != nil {
			return "", fmt.Errorf("parquetio: column %s, row group %d: %w", p.Path(), g, err)
		}
		if _, ok := cr.(*file.Int96ColumnChunkReader); !ok {
			return "", fmt.Errorf("parquetio: column %s: not an INT96 column", p.Path())
		}
		lc := r.leaves[col]
		d := &leafDecoder{cr: cr, col: lc, rg: g, l: &leaf{path: lc.ColumnPath()}, rc: readConv{maxDef: int(lc.MaxDefinitionLevel()), maxRep: int(lc.MaxRepetitionLevel())}}
		for {
			n, nv, err := d.readSome(4096)
			if err != nil {
				return "", err
			}
			if n == 0 {
				break
			}
			for i := range d.v96[:nv] {
				v := d.v96[i]
				need := -1
				for u := range int96Units {
					_, in, exact := int96In(v, int96Units[u].nanos)
					if !exact && fine[u] == nil {
						fine[u] = &v
					}
					if in && need < 0 {
						need = u
					}
				}
				if need < 0 {
					return "", fmt.Errorf("parquetio: column %s: INT96 timestamp %s is beyond every numpy unit's range", p.Path(), int96Date(v))
				}
				if need > rangeU {
					rangeU, far = need, v
				}
			}
		}
	}
	if f := fine[rangeU]; f != nil {
		return "", fmt.Errorf("parquetio: column %s: INT96 timestamps %s (beyond datetime64[%s]'s range) and %s (with digits finer than %s): no numpy unit holds both exactly",
			p.Path(), int96Date(far), int96Units[rangeU-1].name, int96Date(*f), int96Units[rangeU].name)
	}
	return int96Units[rangeU].name, nil
}
