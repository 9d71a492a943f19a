// Command gobench runs one Go contender of the npyflow comparison
// benchmarks (see ../README.md) and prints one line:
//
//	RESULT op_secs=<seconds of the timed operation> check=<value> [out_bytes=<n>]
//
// Only the operation named by the op is timed; loading the input of a
// write-from-memory contender is not. check lets the driver confirm that
// every contender read or wrote the same values. An op whose npyflow API
// is not implemented yet prints "PENDING <reason>" and exits 3.
//
// usage: gobench [-cpuprofile FILE] OP ARGS...
package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"sort"
	"strings"
	"time"
	"unsafe"

	"github.com/npyflow/npyflow/npyio"
	sbinet "github.com/sbinet/npyio"
)

// exitPending is the exit code of a contender whose npyflow API is not
// there yet.
const exitPending = 3

type op struct {
	args  string
	about string
	run   func(args []string) (result, error)
}

// result is what an op reports.
type result struct {
	secs     float64
	check    string
	outBytes int64
}

var ops = map[string]op{
	"read-npyflow":     {"IN.npy", "npyio.ReadFile (whole array)", readNpyflow},
	"mmap-npyflow":     {"IN.npy", "npyio.Map, then touch every page", mmapNpyflow},
	"stream-npyflow":   {"IN.npy", "npyio.NewReaderAt + Next(65536) to the end", streamNpyflow},
	"read-sbinet":      {"IN.npy", "sbinet/npyio.Read into []float64 through a 1 MiB bufio.Reader", readSbinet},
	"read-hugepage":    {"IN.npy", "prototype: npyio.ReadFile plus madvise(MADV_HUGEPAGE) on the fresh buffer", readHugepage},
	"write-hugepage":   {"IN.npy OUT.npy", "prototype: write-npyflow with IN loaded by read-hugepage", writeHugepage},
	"copy-userspace":   {"IN OUT", "pread + write through a 4 MiB buffer: the floor of any user-space converter", copyUserspace},
	"readfile":         {"IN.npy", "os.ReadFile (the floor)", readFile},
	"write-npyflow":    {"IN.npy OUT.npy", "npyio.WriteArray of IN (loaded first, untimed)", writeNpyflow},
	"write-sbinet":     {"IN.npy OUT.npy", "sbinet/npyio.Write of IN as []float64 through a 1 MiB bufio.Writer", writeSbinet},
	"npz-npyflow":      {"IN.npy OUT.npz", "npyio.NewNPZWriter(w, true).WriteArray of IN (loaded first, untimed)", npzNpyflow},
	"npzread-npyflow":  {"IN.npz", "npyio.OpenNPZ + Member(\"x\").ReadArray", npzReadNpyflow},
	"pqarrow":          {"IN.npy OUT.parquet", "arrow-go pqarrow, zstd, from Arrow arrays built in memory (untimed)", pqarrowWrite},
	"pqarrow-nodict":   {"IN.npy OUT.parquet", "the same with dictionary encoding off (as npyflow's default)", pqarrowNoDict},
	"srcparquet":       {"IN.npy OUT.parquet", "uncompressed Parquet of IN for DuckDB to load (setup, not a contender)", srcParquet},
	"ipc-npyflow":      {"IN.npy OUT.arrow", "arrowconv.NewRecordReader + WriteIPC, end to end from the file", ipcNpyflow},
	"ipccheck":         {"FILE.arrow", "prints VERIFY <summary> of an IPC file of the structured array (not a contender)", ipcCheck},
	"ipcmmap-npyflow":  {"IN.npy OUT.arrow", "npyio.Map + arrowconv.NewArrayRecordReader + WriteIPC", ipcMmapNpyflow},
	"parquet-npyflow":  {"IN.npy OUT.parquet", "npyflow's Parquet sink, zstd, end to end from the file", parquetNpyflow},
	"pqsrc4":           {"ROWS OUT.parquet", "pqarrow-written (i8, f8, f4, bool) zstd Parquet for workload w8 (setup, not a contender)", pqSource4},
	"ipc2npy-npyflow":  {"IN.arrow OUT.npy", "arrowconv.ConvertIPC of an IPC file (read through a read-only mapping)", ipc2npyMapped},
	"ipc2npy-pread":    {"IN.arrow OUT.npy", "arrowconv.ConvertIPC of an IPC file read through pread (the file as a plain io.ReaderAt)", ipc2npyPread},
	"ipc2npy-mmapout":  {"IN.arrow OUT.npy", "prototype: ConvertIPC's transpose with rows encoded straight into a shared mapping of OUT (Linux)", ipcToNPYMmapOut},
	"npy-from-parquet": {"IN.parquet OUT.npy", "parquetio.NewReader + npyio.NewWriter, end to end", parquetToNPY},
}

// errPending marks an op whose npyflow API is not implemented yet.
type errPending struct{ err error }

func (e errPending) Error() string { return e.err.Error() }

func main() {
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the timed operation to `file`")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: gobench [-cpuprofile FILE] OP ARGS...\n\nops:")
		for _, name := range sortedOps() {
			fmt.Fprintf(os.Stderr, "  %-16s %-20s %s\n", name, ops[name].args, ops[name].about)
		}
	}
	flag.Parse()
	if flag.NArg() < 1 {
		flag.Usage()
		os.Exit(2)
	}
	o, ok := ops[flag.Arg(0)]
	if !ok || flag.NArg()-1 != len(strings.Fields(o.args)) {
		flag.Usage()
		os.Exit(2)
	}
	profile = *cpuprofile
	r, err := o.run(flag.Args()[1:])
	if err != nil {
		var p errPending
		if errors.As(err, &p) {
			fmt.Printf("PENDING %v\n", p.err)
			os.Exit(exitPending)
		}
		fmt.Fprintf(os.Stderr, "gobench %s: %v\n", flag.Arg(0), err)
		os.Exit(1)
	}
	line := fmt.Sprintf("RESULT op_secs=%.6f check=%s", r.secs, r.check)
	if r.outBytes > 0 {
		line += fmt.Sprintf(" out_bytes=%d", r.outBytes)
	}
	fmt.Println(line)
}

func sortedOps() []string {
	names := make([]string, 0, len(ops))
	for n := range ops {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// profile is the -cpuprofile file, if any.
var profile string

// timed runs f, with the CPU profile on if asked, and returns its duration.
func timed(f func() error) (float64, error) {
	if profile != "" {
		pf, err := os.Create(profile)
		if err != nil {
			return 0, err
		}
		defer pf.Close()
		if err := pprof.StartCPUProfile(pf); err != nil {
			return 0, err
		}
		defer pprof.StopCPUProfile()
	}
	t := time.Now()
	err := f()
	return time.Since(t).Seconds(), err
}

// f64Check summarizes float64 values the way pybench.py does.
func f64Check(v []float64) string {
	var s float64
	for _, x := range v {
		s += x
	}
	return fmt.Sprintf("n=%d,sum=%.6e", len(v), s)
}

// structCheck summarizes a structured array (its "id" field) the way
// pybench.py does.
func structCheck(dt *npyio.DType, rows int64, data []byte) (string, error) {
	off := -1
	for _, f := range dt.Fields {
		if f.Name == "id" {
			off = f.Offset
		}
	}
	if off < 0 {
		return "", fmt.Errorf("no id field in %v", dt)
	}
	var s int64
	for i := int64(0); i < rows; i++ {
		s += *(*int64)(unsafe.Pointer(&data[i*int64(dt.Size)+int64(off)]))
	}
	return fmt.Sprintf("rows=%d,id_sum=%d", rows, s), nil
}

// arrayCheck summarizes any benchmark array.
func arrayCheck(a *npyio.Array) (string, error) {
	if a.DType.Kind == npyio.Struct {
		return structCheck(a.DType, a.Header.Rows(), a.Data)
	}
	v, err := npyio.View[float64](a.Data)
	if err != nil {
		return "", err
	}
	return f64Check(v), nil
}

func readNpyflow(args []string) (result, error) {
	var a *npyio.Array
	secs, err := timed(func() (err error) {
		a, err = npyio.ReadFile(args[0], nil)
		return err
	})
	if err != nil {
		return result{}, err
	}
	c, err := arrayCheck(a)
	return result{secs: secs, check: c}, err
}

func mmapNpyflow(args []string) (result, error) {
	var m *npyio.MappedArray
	var touched byte
	secs, err := timed(func() (err error) {
		m, err = npyio.Map(args[0], nil)
		if err != nil {
			return err
		}
		for i := 0; i < len(m.Data); i += 4096 {
			touched ^= m.Data[i]
		}
		return nil
	})
	if err != nil {
		return result{}, err
	}
	defer m.Close()
	_ = touched
	c, err := arrayCheck(&m.Array)
	return result{secs: secs, check: c}, err
}

func streamNpyflow(args []string) (result, error) {
	f, err := os.Open(args[0])
	if err != nil {
		return result{}, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return result{}, err
	}
	var rows int64
	var batches int
	secs, err := timed(func() error {
		r, err := npyio.NewReaderAt(f, st.Size(), nil)
		if err != nil {
			return err
		}
		for {
			b, err := r.Next(65536)
			if err == io.EOF {
				return nil
			}
			if err != nil {
				return err
			}
			rows += int64(b.Rows)
			batches++
		}
	})
	if err != nil {
		return result{}, err
	}
	return result{secs: secs, check: fmt.Sprintf("rows=%d,batches=%d", rows, batches)}, nil
}

func readSbinet(args []string) (result, error) {
	var v []float64
	secs, err := timed(func() error {
		f, err := os.Open(args[0])
		if err != nil {
			return err
		}
		defer f.Close()
		return sbinet.Read(bufio.NewReaderSize(f, 1<<20), &v)
	})
	if err != nil {
		return result{}, err
	}
	return result{secs: secs, check: f64Check(v)}, nil
}

func readFile(args []string) (result, error) {
	var b []byte
	secs, err := timed(func() (err error) {
		b, err = os.ReadFile(args[0])
		return err
	})
	if err != nil {
		return result{}, err
	}
	return result{secs: secs, check: fmt.Sprintf("bytes=%d", len(b))}, nil
}

// writeTo creates out, runs f on it, closes it and returns its size.
func writeTo(out string, f func(w io.Writer) error) (int64, error) {
	fh, err := os.Create(out)
	if err != nil {
		return 0, err
	}
	if err := f(fh); err != nil {
		fh.Close()
		return 0, err
	}
	if err := fh.Close(); err != nil {
		return 0, err
	}
	st, err := os.Stat(out)
	if err != nil {
		return 0, err
	}
	return st.Size(), nil
}

func copyUserspace(args []string) (result, error) {
	var n int64
	secs, err := timed(func() error {
		in, err := os.Open(args[0])
		if err != nil {
			return err
		}
		defer in.Close()
		n, err = writeTo(args[1], func(w io.Writer) error {
			buf := make([]byte, 4<<20)
			for off := int64(0); ; {
				m, err := in.ReadAt(buf, off)
				if m > 0 {
					if _, err := w.Write(buf[:m]); err != nil {
						return err
					}
					off += int64(m)
				}
				if err == io.EOF {
					return nil
				}
				if err != nil {
					return err
				}
			}
		})
		return err
	})
	return result{secs: secs, check: fmt.Sprintf("bytes=%d", n), outBytes: n}, err
}

func writeNpyflow(args []string) (result, error) {
	a, err := npyio.ReadFile(args[0], nil)
	if err != nil {
		return result{}, err
	}
	c, err := arrayCheck(a)
	if err != nil {
		return result{}, err
	}
	var n int64
	secs, err := timed(func() (err error) {
		n, err = writeTo(args[1], func(w io.Writer) error { return npyio.WriteArray(w, a) })
		return err
	})
	return result{secs: secs, check: c, outBytes: n}, err
}

func writeSbinet(args []string) (result, error) {
	a, err := npyio.ReadFile(args[0], nil)
	if err != nil {
		return result{}, err
	}
	v, err := npyio.View[float64](a.Data)
	if err != nil {
		return result{}, err
	}
	var n int64
	secs, err := timed(func() (err error) {
		n, err = writeTo(args[1], func(w io.Writer) error {
			bw := bufio.NewWriterSize(w, 1<<20)
			if err := sbinet.Write(bw, v); err != nil {
				return err
			}
			return bw.Flush()
		})
		return err
	})
	return result{secs: secs, check: f64Check(v), outBytes: n}, err
}

func npzNpyflow(args []string) (result, error) {
	a, err := npyio.ReadFile(args[0], nil)
	if err != nil {
		return result{}, err
	}
	c, err := arrayCheck(a)
	if err != nil {
		return result{}, err
	}
	var n int64
	secs, err := timed(func() (err error) {
		n, err = writeTo(args[1], func(w io.Writer) error {
			// The zip writer makes many small writes (headers, flate
			// blocks): buffer them as np.savez_compressed's file object does.
			bw := bufio.NewWriterSize(w, 1<<20)
			z := npyio.NewNPZWriter(bw, true)
			if err := z.WriteArray("x", a); err != nil {
				return err
			}
			if err := z.Close(); err != nil {
				return err
			}
			return bw.Flush()
		})
		return err
	})
	return result{secs: secs, check: c, outBytes: n}, err
}

func npzReadNpyflow(args []string) (result, error) {
	var a *npyio.Array
	secs, err := timed(func() error {
		z, err := npyio.OpenNPZ(args[0], nil)
		if err != nil {
			return err
		}
		defer z.Close()
		m := z.Member("x")
		if m == nil {
			return fmt.Errorf("%s: no member x", args[0])
		}
		a, err = m.ReadArray()
		return err
	})
	if err != nil {
		return result{}, err
	}
	c, err := arrayCheck(a)
	return result{secs: secs, check: c}, err
}
