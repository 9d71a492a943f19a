package main

import (
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/npyflow/npyflow/arrowconv"
	"github.com/npyflow/npyflow/npyio"
	"github.com/npyflow/npyflow/parquetio"
)

// pending turns "not implemented yet" errors of npyflow's skeleton APIs
// into errPending.
func pending(err error) error {
	if err != nil && strings.Contains(err.Error(), "not implemented yet") {
		return errPending{err}
	}
	return err
}

func ipcNpyflow(args []string) (result, error) {
	var n, rows int64
	secs, err := timed(func() error {
		in, err := os.Open(args[0])
		if err != nil {
			return err
		}
		defer in.Close()
		st, err := in.Stat()
		if err != nil {
			return err
		}
		r, err := npyio.NewReaderAt(in, st.Size(), nil)
		if err != nil {
			return err
		}
		rr, err := arrowconv.NewRecordReader(r, "x", 0, memory.DefaultAllocator)
		if err != nil {
			return pending(err)
		}
		defer rr.Release()
		n, err = writeTo(args[1], func(w io.Writer) (err error) {
			rows, err = arrowconv.WriteIPC(w, rr, arrowconv.IPCOptions{}, memory.DefaultAllocator)
			return err
		})
		return pending(err)
	})
	if err != nil {
		return result{}, err
	}
	return result{secs: secs, check: "rows=" + strconv.FormatInt(rows, 10), outBytes: n}, nil
}

// ipcMmapNpyflow converts through npyio.Map and NewArrayRecordReader:
// columns that are contiguous in the file are referenced, not copied.
func ipcMmapNpyflow(args []string) (result, error) {
	var n, rows int64
	secs, err := timed(func() error {
		m, err := npyio.Map(args[0], nil)
		if err != nil {
			return err
		}
		defer m.Close()
		rr, err := arrowconv.NewArrayRecordReader(&m.Array, "x", 0, memory.DefaultAllocator)
		if err != nil {
			return pending(err)
		}
		defer rr.Release()
		n, err = writeTo(args[1], func(w io.Writer) (err error) {
			rows, err = arrowconv.WriteIPC(w, rr, arrowconv.IPCOptions{}, memory.DefaultAllocator)
			return err
		})
		return pending(err)
	})
	if err != nil {
		return result{}, err
	}
	return result{secs: secs, check: "rows=" + strconv.FormatInt(rows, 10), outBytes: n}, nil
}

// parquetNpyflow converts with parquetio.WriteArray and default options
// (zstd, 1Mi-row groups, GOMAXPROCS row groups encoded at once), the way
// `npyflow convert` does, minus its fsync and temp-file rename.
func parquetNpyflow(args []string) (result, error) {
	var n, rows int64
	secs, err := timed(func() error {
		in, err := os.Open(args[0])
		if err != nil {
			return err
		}
		defer in.Close()
		st, err := in.Stat()
		if err != nil {
			return err
		}
		open := func() ([]*npyio.Reader, error) {
			r, err := npyio.NewReaderAt(in, st.Size(), nil)
			if err != nil {
				return nil, err
			}
			return []*npyio.Reader{r}, nil
		}
		n, err = writeTo(args[1], func(w io.Writer) (err error) {
			rows, err = parquetio.WriteArray(w, open, "x", nil, nil)
			return err
		})
		return err
	})
	if err != nil {
		return result{}, err
	}
	return result{secs: secs, check: "rows=" + strconv.FormatInt(rows, 10), outBytes: n}, nil
}

// parquetToNPY reads a Parquet file with parquetio.NewReader and writes
// its rows as one .npy through npyio's streaming writer, the way `npyflow
// convert x.parquet x.npy` does (minus its fsync and temp-file rename).
func parquetToNPY(args []string) (result, error) {
	var n, rows int64
	secs, err := timed(func() error {
		in, err := os.Open(args[0])
		if err != nil {
			return err
		}
		defer in.Close()
		st, err := in.Stat()
		if err != nil {
			return err
		}
		r, err := parquetio.NewReader(in, st.Size())
		if err != nil {
			return err
		}
		n, err = writeTo(args[1], func(w io.Writer) error {
			wr, err := npyio.NewWriter(w, r.Header())
			if err != nil {
				return err
			}
			for {
				b, err := r.Next(1 << 20)
				if err == io.EOF {
					break
				}
				if err != nil {
					return err
				}
				if _, err := wr.Write(b.Data); err != nil {
					return err
				}
				rows += int64(b.Rows)
			}
			return wr.Close()
		})
		return err
	})
	if err != nil {
		return result{}, err
	}
	return result{secs: secs, check: "rows=" + strconv.FormatInt(rows, 10), outBytes: n}, nil
}

// ipcToNPY converts an Arrow IPC file to .npy with arrowconv.ConvertIPC:
// through a read-only mapping of the file (mapped), or through pread as
// for any other io.ReaderAt (the file hidden behind another type).
func ipcToNPY(args []string, mapped bool) (result, error) {
	var rows, n int64
	secs, err := timed(func() error {
		in, err := os.Open(args[0])
		if err != nil {
			return err
		}
		defer in.Close()
		out, err := os.Create(args[1])
		if err != nil {
			return err
		}
		defer out.Close()
		var r io.Reader = in
		if !mapped {
			r = preadFile{in}
		}
		rows, _, err = arrowconv.ConvertIPC(out, r, nil, "", memory.DefaultAllocator)
		if err != nil {
			return err
		}
		st, err := out.Stat()
		if err != nil {
			return err
		}
		n = st.Size()
		return out.Close()
	})
	if err != nil {
		return result{}, err
	}
	return result{secs: secs, check: "rows=" + strconv.FormatInt(rows, 10), outBytes: n}, nil
}

// preadFile is an *os.File that is only an io.Reader, io.ReaderAt and
// io.Seeker.
type preadFile struct{ f *os.File }

func (p preadFile) Read(b []byte) (int, error)              { return p.f.Read(b) }
func (p preadFile) ReadAt(b []byte, off int64) (int, error) { return p.f.ReadAt(b, off) }
func (p preadFile) Seek(off int64, whence int) (int64, error) {
	return p.f.Seek(off, whence)
}

func ipc2npyMapped(args []string) (result, error) { return ipcToNPY(args, true) }
func ipc2npyPread(args []string) (result, error)  { return ipcToNPY(args, false) }
