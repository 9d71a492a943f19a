package hdf5

import "strconv"

func fmtU(v uint64) string { return strconv.FormatUint(v, 10) }
func fmtI(v int64) string  { return strconv.FormatInt(v, 10) }
