package arrowconv_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/npyflow/npyflow/arrowconv"
)

// goRuntimeText is what a message about a damaged file must not hold:
// Go's own words for a panic, which say nothing about the file.
var goRuntimeText = regexp.MustCompile(`runtime error|index out of range|slice bounds|nil pointer|invalid memory address|goroutine |panic:|\.go:\d`)

// mutant is a damaged copy of a file: what was done, and its bytes.
type mutant struct {
	what string
	data []byte
}

// mutants returns deterministic damaged copies of b: truncations, bit
// flips, and 4- and 8-byte fields overwritten with huge values.
func mutants(b []byte, n int, seed uint64) []mutant {
	rng := rand.New(rand.NewPCG(seed, uint64(len(b))))
	var out []mutant
	for k := 0; k < n; k++ {
		c := bytes.Clone(b)
		p := rng.IntN(len(b))
		switch k % 4 {
		case 0:
			out = append(out, mutant{fmt.Sprintf("truncated to %d bytes", p), c[:p]})
		case 1:
			bit := byte(1) << rng.IntN(8)
			c[p] ^= bit
			out = append(out, mutant{fmt.Sprintf("bit %#x of byte %d flipped", bit, p), c})
		case 2:
			if p+4 > len(c) {
				p = len(c) - 4
			}
			v := []uint32{0x7fffffff, 0xffffffff, 0x10000000, 0x80000000}[rng.IntN(4)]
			binary.LittleEndian.PutUint32(c[p:], v)
			out = append(out, mutant{fmt.Sprintf("4 bytes at %d set to %#x", p, v), c})
		case 3:
			p &^= 7
			if p+8 > len(c) {
				p = len(c) - 8
			}
			v := []uint64{1 << 62, 1<<63 - 1, 1 << 40, 1 << 33}[rng.IntN(4)]
			binary.LittleEndian.PutUint64(c[p:], v)
			out = append(out, mutant{fmt.Sprintf("8 bytes at %d set to %#x", p, v), c})
		}
	}
	return out
}

// convertDamaged reads data as an IPC file (by offset) or a stream (a
// pipe) and converts every record, returning the first error.
func convertDamaged(data []byte, pipe bool) (err error) {
	var r io.Reader = bytes.NewReader(data)
	if pipe {
		r = io.MultiReader(r)
	}
	mem := memory.NewGoAllocator()
	rr, err := arrowconv.NewIPCReader(r, mem)
	if err != nil {
		return err
	}
	defer rr.Release()
	m, err := arrowconv.MapSchema(rr.Schema(), &arrowconv.MapOptions{ValidityFields: true})
	if err != nil {
		return err
	}
	var buf []byte
	for rr.Next() {
		if m.NeedsScan() {
			if err := m.Scan(rr.RecordBatch()); err != nil {
				return err
			}
			continue
		}
		if buf, err = m.Encode(rr.RecordBatch(), buf[:0]); err != nil {
			return err
		}
	}
	return rr.Err()
}

// TestDamagedIPCPanics feeds arrow-go damaged copies of files arrow-go
// and Arrow JS wrote where arrow-go itself panics (npyflow's checks leave
// those bytes to it): the panic in its validation, in its file reader's
// schema, and the ones its readers recover themselves, each refused in
// words about the data, naming arrow-go, without Go's runtime text.
func TestDamagedIPCPanics(t *testing.T) {
	cases := []struct {
		file string
		op   string // "flip": xor byte at with val; "put4", "put8": little-endian val at at
		at   int
		val  uint64
		pipe bool
		want string
	}{
		{"nulls.arrow", "flip", 1004, 0x08, true, "corrupt IPC data: record batch 0: arrow-go panicked validating it: an offset or a length points outside its buffer (arrow-go cannot load it)"},
		{"dict_delta.arrows", "put8", 600, 0x200000000, true, `corrupt IPC data: record batch 0: column 1 (fcat): dictionary: failed to construct child array: an offset or a length points outside its buffer (arrow-go cannot load it)`},
		{"every_type.arrow", "put4", 1474, 0x7fffffff, true, "corrupt IPC data: schema: an offset or a length points outside its buffer (arrow-go cannot load it)"},
		{"every_type.arrow", "put4", 13492, 0x7fffffff, false, "reading IPC file: arrow-go panicked reading its footer and schema: type not implemented"},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%s/%s@%d", c.file, c.op, c.at), func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join("testdata", "foreign", c.file))
			if err != nil {
				t.Fatal(err)
			}
			switch c.op {
			case "flip":
				b[c.at] ^= byte(c.val)
			case "put4":
				binary.LittleEndian.PutUint32(b[c.at:], uint32(c.val))
			case "put8":
				binary.LittleEndian.PutUint64(b[c.at:], c.val)
			}
			err = convertDamaged(b, c.pipe)
			if err == nil || !strings.HasSuffix(err.Error(), c.want) {
				t.Fatalf("error %v, want one ending %q", err, c.want)
			}
		})
	}
}

// TestDamagedIPC converts deterministic damaged copies (truncated, bits
// flipped, 4- and 8-byte fields set huge) of IPC files arrow-go and Arrow
// JS wrote, read by offset and from a pipe: each is converted or refused
// with a message about the data, never with Go's runtime text or a panic.
// (A stream read by offset is walked by ReadIPCInfo first, whose words are
// its own; the pipe covers what arrow-go decodes of it.)
func TestDamagedIPC(t *testing.T) {
	files := []string{"every_type.arrow", "every_type_lz4.arrows", "every_type_zstd.arrow", "arrowjs_every_type.arrow", "arrowjs_nested_nulls.arrows", "dict_delta.arrows", "big_endian.arrow", "nulls.arrow"}
	n := 200
	if testing.Short() {
		n = 24
	}
	bad := 0
	for i, name := range files {
		b, err := os.ReadFile(filepath.Join("testdata", "foreign", name))
		if err != nil {
			t.Fatal(err)
		}
		for _, mu := range mutants(b, n, uint64(i)) {
			for _, pipe := range []bool{false, true} {
				if !pipe && strings.HasSuffix(name, ".arrows") {
					continue // a stream read by offset: ReadIPCInfo's walk first
				}
				err := func() error {
					defer func() {
						if p := recover(); p != nil {
							t.Errorf("%s, %s (pipe %v): panic: %v", name, mu.what, pipe, p)
						}
					}()
					return convertDamaged(mu.data, pipe)
				}()
				if err == nil {
					continue
				}
				msg := err.Error()
				if os.Getenv("DAMAGED_LOG") != "" {
					t.Logf("%s, %s (pipe %v): %s", name, mu.what, pipe, msg)
				}
				if goRuntimeText.MatchString(msg) {
					bad++
					if bad < 40 {
						t.Errorf("%s, %s (pipe %v): %s", name, mu.what, pipe, msg)
					}
				}
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d messages with Go runtime text", bad)
	}
}
