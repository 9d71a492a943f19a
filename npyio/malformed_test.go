package npyio_test

import (
	"bytes"
	"errors"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/npyflow/npyflow/internal/fixtures"
	"github.com/npyflow/npyflow/npyio"
)

// readAll reads a file every way npyio can, returning the first error.
func readAllWays(data []byte) []error {
	var errs []error
	if r, err := npyio.NewReaderAt(bytes.NewReader(data), int64(len(data)), nil); err != nil {
		errs = append(errs, err)
	} else {
		errs = append(errs, drain(r))
	}
	if r, err := npyio.NewReader(bytes.NewReader(data), nil); err != nil {
		errs = append(errs, err)
	} else {
		errs = append(errs, drain(r))
	}
	_, err := npyio.ReadArray(bytes.NewReader(data), nil)
	errs = append(errs, err)
	return errs
}

func drain(r *npyio.Reader) error {
	for {
		_, err := r.Next(1024)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// kindMatches reports whether err is the class of error a malformed-corpus
// case promises.
func kindMatches(kind string, err error) bool {
	var he *npyio.HeaderError
	var de *npyio.DTypeError
	var ue *npyio.UnsupportedError
	switch kind {
	case "magic":
		return errors.Is(err, npyio.ErrMagic)
	case "version":
		return errors.Is(err, npyio.ErrVersion)
	case "truncated":
		return errors.Is(err, io.ErrUnexpectedEOF)
	case "header_syntax", "header_value", "dtype":
		return errors.As(err, &he) || errors.As(err, &de)
	case "unsupported":
		return errors.As(err, &ue)
	case "too_large", "overflow":
		return errors.Is(err, npyio.ErrTooLarge) || errors.Is(err, npyio.ErrHeaderTooLarge) ||
			errors.Is(err, io.ErrUnexpectedEOF) || errors.As(err, &he)
	}
	return false
}

func TestMalformedCorpus(t *testing.T) {
	for _, c := range fixtures.MalformedCases(t) {
		if strings.HasSuffix(c.File, ".npz") {
			continue
		}
		t.Run(c.File, func(t *testing.T) {
			data, err := os.ReadFile(c.Path)
			if err != nil {
				t.Fatal(err)
			}
			for i, err := range readAllWays(data) {
				if err == nil {
					t.Fatalf("way %d: %s (%s) was accepted", i, c.File, c.What)
				}
				if !kindMatches(c.Kind, err) {
					t.Errorf("way %d: %s: error %q (%T) is not of kind %s", i, c.What, err, err, c.Kind)
				}
				if !strings.HasPrefix(err.Error(), "npyio: ") {
					t.Errorf("error %q lacks the package prefix", err)
				}
			}
		})
	}
}

func TestMalformedNPZ(t *testing.T) {
	for _, c := range fixtures.MalformedCases(t) {
		if !strings.HasSuffix(c.File, ".npz") {
			continue
		}
		nz, err := npyio.OpenNPZ(c.Path, nil)
		if err != nil {
			continue // a bad archive directory is a fine refusal
		}
		bad := 0
		for _, m := range nz.Members {
			if r, err := m.Open(); err != nil {
				bad++
			} else if drain(r) != nil {
				bad++
			}
		}
		nz.Close()
		if bad == 0 {
			t.Errorf("%s: every member read fine, want an error (%s)", c.File, c.What)
		}
	}
}

// TestErrorsNameTheProblem spot-checks messages users will see.
func TestErrorsNameTheProblem(t *testing.T) {
	cases := []struct {
		header string
		want   string
	}{
		{"{'descr': '<f8', 'fortran_order': False}", "missing key 'shape'"},
		{"{'descr': '<f8', 'fortran_order': False, 'shape': (3,), 'x': 1}", "unexpected header key 'x'"},
		{"{'descr': '<f8', 'fortran_order': 0, 'shape': (3,)}", "fortran_order must be True or False"},
		{"{'descr': '<f8', 'fortran_order': False, 'shape': (-1, 3)}", "dimension 0 is negative"},
		{"{'descr': '<f8', 'fortran_order': False, 'shape': (3.0,)}", "dimension 0 is a float"},
		{"{'descr': '<f8', 'fortran_order': False, 'shape': [3]}", "shape must be a tuple"},
		{"{'descr': '<f8', 'fortran_order': False, 'shape': (2+3,)}", "arithmetic"},
		{"{'descr': dtype('<f8'), 'fortran_order': False, 'shape': (3,)}", "function call dtype"},
		{"{'descr': '<x8', 'fortran_order': False, 'shape': (3,)}", "unknown type code 'x'"},
		{"{'descr': [('a', '<i4'), ('a', '<f8')], 'fortran_order': False, 'shape': (3,)}", "duplicate field name \"a\""},
		{"{'descr': '<f8', 'fortran_order': False, 'shape': (3,)} junk", "after the header literal"},
		{"{'descr': '<f8', 'fortran_order': False, 'shape': (3,)", "unterminated dict"},
		{"{'descr': '<f8, 'fortran_order': False, 'shape': (3,)}", "expected ',' or '}'"},
		{"{'descr': '<f8', 'fortran_order': False, 'shape': (4611686018427387904, 4)}", "too large"},
		{"{'descr': '<f8', 'fortran_order': False, 'shape': (99999999999999999999,)}", "too large"},
		{strings.Repeat("[", 10000), "nested more than"},
	}
	for _, c := range cases {
		_, err := npyio.ParseHeader(c.header)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ParseHeader(%.60q): error %v, want it to mention %q", c.header, err, c.want)
		}
	}
}

func TestHeaderVariantsAccepted(t *testing.T) {
	cases := []string{
		`{"descr": "<f8", "fortran_order": False, "shape": (3,)}`,
		"{'shape': (3L,), 'fortran_order': False, 'descr': '<f8',}",
		"{\t'descr' :\r\n '<f8' ,\n 'fortran_order':False,'shape':( 3 , ) , }",
		"{'descr': u'<f8', 'fortran_order': False, 'shape': (3,)}",
		"{'descr': '<' 'f8', 'fortran_order': False, 'shape': (3,)}",
	}
	for _, c := range cases {
		h, err := npyio.ParseHeader(c)
		if err != nil {
			t.Errorf("ParseHeader(%q): %v", c, err)
			continue
		}
		if h.DType.String() != "'<f8'" || len(h.Shape) != 1 || h.Shape[0] != 3 || h.FortranOrder {
			t.Errorf("ParseHeader(%q) = %s %v %v", c, h.DType, h.Shape, h.FortranOrder)
		}
	}
}

func TestHeaderLimit(t *testing.T) {
	fx := fixtures.NPYByName(t, "rec_4000_fields")
	data, err := os.ReadFile(fx.Path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := npyio.ReadHeader(bytes.NewReader(data), &npyio.Options{MaxHeaderSize: 10000}); !errors.Is(err, npyio.ErrHeaderTooLarge) {
		t.Fatalf("header over the limit: %v", err)
	}
	if _, err := npyio.ReadHeader(bytes.NewReader(data), nil); err != nil {
		t.Fatalf("default limit refuses a header numpy wrote: %v", err)
	}
}

// TestClaimedSizeNotAllocated checks that a header claiming a huge array on
// a short stream fails without allocating the claimed size.
func TestClaimedSizeNotAllocated(t *testing.T) {
	h := &npyio.Header{DType: npyio.Float64Type, Shape: []int{1 << 40}}
	hdr, err := npyio.EncodeHeader(h)
	if err != nil {
		t.Fatal(err)
	}
	data := append(hdr, make([]byte, 100)...)
	before := memStats()
	a, err := npyio.ReadArray(bytes.NewReader(data), nil)
	if err == nil || a != nil || !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("ReadArray of a short body: %v", err)
	}
	if grew := memStats() - before; grew > 256<<20 {
		t.Fatalf("allocated %d bytes for a 100-byte body", grew)
	}
	if _, err := npyio.NewReaderAt(bytes.NewReader(data), int64(len(data)), nil); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("NewReaderAt did not check the size first: %v", err)
	}
}
