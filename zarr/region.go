package zarr

import "context"

// CreateRegion starts writing the rows [first, last) along the first
// axis of the array o describes at path in s, as one of several writers
// of the array (the tasks of a sharded run, each writing its own chunks):
// first must fall on a chunk (shard, when sharded) boundary, and last on
// one or at the array's end, so that no two writers share a chunk.
// WriteRows takes the region's rows in order; Close writes the rows still
// buffered but no metadata: whoever writes the metadata does it once, after
// every region, with CreateArray and Close without rows.
func CreateRegion(ctx context.Context, s Store, path string, o CreateOptions, first, last int64) (*ArrayWriter, error) {
	w, err := CreateArray(ctx, s, path, o)
	if err != nil {
		return nil, err
	}
	a := w.a
	if len(a.Shape) == 0 {
		if first != 0 || last != 1 {
			return nil, a.errf("", "rows %d to %d of a 0-d array", first, last)
		}
		w.region, w.end = true, 1 // one element, written whole
		return w, nil
	}
	c := a.Chunks[0]
	if first < 0 || last < first || last > a.Shape[0] || first%c != 0 || (last%c != 0 && last != a.Shape[0]) {
		return nil, a.errf("", "rows %d to %d of %d are not whole chunks of %d rows", first, last, a.Shape[0], c)
	}
	w.region, w.rowsFrom, w.rows, w.bandAt, w.end = true, first, first, first, last
	return w, nil
}
