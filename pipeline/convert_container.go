package pipeline

import (
	"fmt"
	"io"
	"strings"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/npyflow/npyflow/arrowconv"
	"github.com/npyflow/npyflow/hdf5"
	"github.com/npyflow/npyflow/matfile"
	"github.com/npyflow/npyflow/npyio"
)

// Conversions to .mat and HDF5: every array of the input (an .npz member,
// an HDF5 dataset, a MAT-file array) becomes a variable or dataset of the
// same name; a plain .npy or a Parquet/Arrow table becomes one, named by
// --name (IN's base name by default); a table is a structured array,
// which a MAT-file holds as a 1x1 struct of column vectors.

// checkContainerOutput checks the options of a .mat or HDF5 output.
func checkContainerOutput(format string, o *ConvertOptions) error {
	switch strings.ToLower(o.Compression) {
	case "", "deflate", "zlib", "gzip":
	case "none", "uncompressed":
	default:
		return optionErrorf("--compression %q is not available for %s (deflate or none)", o.Compression, format)
	}
	if format == "mat" {
		switch o.MatVersion {
		case "", "7.3", "7", "6":
		default:
			return optionErrorf("--mat-version %q: want 7.3, 7 or 6", o.MatVersion)
		}
	}
	return nil
}

func noCompression(s string) bool {
	s = strings.ToLower(s)
	return s == "none" || s == "uncompressed"
}

func (c *converter) warn(msg string) {
	if c.opts.Warn != nil {
		c.opts.Warn(msg)
	} else if WarnFunc != nil {
		WarnFunc(msg)
	}
}

// srcNames are the names of a conversion source's arrays.
func srcNames(src *convSource) []string {
	if src.array {
		return []string{src.name}
	}
	var n []string
	for _, col := range src.cols {
		n = append(n, col.Name)
	}
	return n
}

func (c *converter) toMAT(src *convSource) error {
	names, renames, err := matfile.CheckNames(srcNames(src), c.opts.RenameInvalid)
	if err != nil {
		return err
	}
	for _, r := range renames {
		c.warn(fmt.Sprintf("%s: renamed %q to %q (not a valid MATLAB name)", c.out, r.Old, r.New))
	}
	c.startBar(src.rows, src.bytes)
	return c.withOutput(func(f io.Writer) error {
		rs, err := src.open()
		if err != nil {
			return err
		}
		mw, err := matfile.NewWriter(f.(io.WriteSeeker), &matfile.WriteOptions{
			Version:       c.opts.MatVersion,
			NoCompression: noCompression(c.opts.Compression),
			RenameInvalid: c.opts.RenameInvalid,
			TempDir:       c.scratchDir(), // large v7 variables are laid out there
			OnRename: func(r matfile.Rename) {
				c.warn(fmt.Sprintf("%s: renamed field %q to %q (not a valid MATLAB name)", c.out, r.Old, r.New))
			},
		})
		if err != nil {
			return err
		}
		var done int64
		for i, r := range rs {
			h := *r.Header()
			h.FortranOrder = false // rows arrive in C order
			vw, err := mw.CreateVariable(names[i], &h)
			if err != nil {
				return err
			}
			if err := pumpTo(vw, r, func(n int64) { c.setProgress(done + n) }); err != nil {
				return fmt.Errorf("%s: %w", names[i], err)
			}
			done += r.Rows()
		}
		return mw.Close()
	})
}

// rowSink is what pumpTo writes: a matfile.VarWriter or an
// hdf5.DatasetWriter.
type rowSink interface {
	Write(rows []byte) error
	Close() error
}

func pumpTo(w rowSink, r *npyio.Reader, progress func(int64)) error {
	var done int64
	for {
		b, err := r.Next(batchRows(r, 1<<16))
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		if err := w.Write(b.Data); err != nil {
			return err
		}
		done += int64(b.Rows)
		if progress != nil {
			progress(done)
		}
	}
	return w.Close()
}

// toHDF5 writes every array as a dataset named by its path (groups are
// created for "a/b"), chunked and deflated (level 4) unless
// --compression none.
func (c *converter) toHDF5(src *convSource) error {
	names := srcNames(src)
	c.startBar(src.rows, src.bytes)
	return c.withOutput(func(f io.Writer) error {
		rs, err := src.open()
		if err != nil {
			return err
		}
		w, err := hdf5.NewWriter(f.(io.WriteSeeker), nil)
		if err != nil {
			return err
		}
		group := h5Groups(w.Root())
		var done int64
		for i, r := range rs {
			name := strings.Trim(names[i], "/")
			dir, base := "", name
			if k := strings.LastIndexByte(name, '/'); k >= 0 {
				dir, base = name[:k], name[k+1:]
			}
			g, err := group(dir)
			if err != nil {
				return err
			}
			h := r.Header()
			shape := make([]uint64, len(h.Shape))
			for k, d := range h.Shape {
				shape[k] = uint64(d)
			}
			var o *hdf5.DatasetOptions
			if !noCompression(c.opts.Compression) && h.DataSize() > hdf5.CompactAuto && len(shape) > 0 {
				o = &hdf5.DatasetOptions{Deflate: 4, Shuffle: true}
			}
			dw, err := g.CreateDataset(base, r.DType(), shape, o)
			if err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			if err := pumpTo(dw, r, func(n int64) { c.setProgress(done + n) }); err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			done += r.Rows()
		}
		return w.Close()
	})
}

// viaScratchNPY converts a Parquet or Arrow input to .mat or HDF5 through
// a scratch .npy next to OUT: the table becomes one structured array.
func (c *converter) viaScratchNPY(inKind, outKind string) error {
	tmp, err := c.scratch()
	if err != nil {
		return err
	}
	defer tmp.Close()
	if inKind == "parquet" {
		r, closeIn, err := c.openParquet()
		if err != nil {
			return err
		}
		h := *r.Header()
		h.FortranOrder = false
		wr, err := npyio.NewWriter(outputFile{tmp}, &h)
		if err == nil {
			err = pump(wr, r, nil)
		}
		closeIn()
		if err != nil {
			return err
		}
	} else {
		fh, _, closeIn, err := c.openInput()
		if err != nil {
			return err
		}
		rr, err := arrowconv.NewIPCReader(fh, memory.DefaultAllocator)
		if err != nil {
			closeIn()
			return err
		}
		_, err = arrowconv.WriteNPY(outputFile{tmp}, rr, nil)
		rr.Release()
		closeIn()
		if err != nil {
			return err
		}
	}
	inner := *c
	inner.inFile = tmp
	src, err := inner.numpySource("npy", outKind)
	if err != nil {
		return err
	}
	defer src.close()
	return inner.fromNumpy(src, outKind)
}
