//go:build ignore

// gen_hostile writes the hostile-input corpus of testdata/hostile: npy,
// npz, Parquet and Arrow files that lie about their sizes, are truncated
// or corrupt, beyond npyio's own testdata/malformed. It also writes
// cases.json, which says for each file what `npyflow convert` and
// `npyflow run` must report (see README.md).
//
// Run it from the repository root:
//
//	go run testdata/hostile/gen_hostile.go
//
// The output is deterministic: no random numbers, fixed zip timestamps.
// The big zip bombs are not committed; cmd/npyflow's reliability test
// builds them in a temporary directory.
package main

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"hash/crc32"
	"io"
	"log"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/klauspost/compress/flate"
	"github.com/npyflow/npyflow/npyio"
	"github.com/npyflow/npyflow/parquetio"
	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// Case is one entry of cases.json.
type Case struct {
	File string `json:"file"`
	What string `json:"what"`
	Kind string `json:"kind"` // npy, npz, parquet or arrow: the source type of the job
	// Problem is a regular expression (case-insensitive) the one-line error
	// must match, besides naming the file.
	Problem string `json:"problem"`
	// OK marks a hostile-looking file that is valid and must convert
	// (quickly and in bounded memory).
	OK bool `json:"ok,omitempty"`
	// OKModes lists the modes (see cmd/npyflow/reliability_test.go) in
	// which the file must convert; in the others it must fail.
	OKModes []string `json:"ok_modes,omitempty"`
}

var (
	dir   = filepath.Join("testdata", "hostile")
	cases []Case
)

func add(name, kind, what, problem string, data []byte) {
	if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
		log.Fatal(err)
	}
	cases = append(cases, Case{File: name, What: what, Kind: kind, Problem: problem})
}

// addOK adds a file that looks hostile but holds valid data: it must
// convert.
func addOK(name, kind, what string, data []byte) {
	add(name, kind, what, "", data)
	cases[len(cases)-1].OK = true
}

func main() {
	log.SetFlags(0)
	if _, err := os.Stat(filepath.Join(dir, "gen_hostile.go")); err != nil {
		log.Fatal("run from the repository root: go run testdata/hostile/gen_hostile.go")
	}
	old, _ := filepath.Glob(filepath.Join(dir, "*.*"))
	for _, p := range old {
		if ext := filepath.Ext(p); ext == ".npy" || ext == ".npz" || ext == ".parquet" || ext == ".arrow" {
			os.Remove(p)
		}
	}
	genNPY()
	genNPZ()
	genParquet()
	genArrow()
	b, err := json.MarshalIndent(cases, "", " ")
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "cases.json"), append(b, '\n'), 0o644); err != nil {
		log.Fatal(err)
	}
	log.Printf("wrote %d cases", len(cases))
}

// npy builds an .npy file with the given version, header literal and data;
// hlen overrides the header length field when >= 0.
func npy(major byte, header string, data []byte, hlen int64) []byte {
	var b bytes.Buffer
	b.WriteString(npyio.Magic)
	b.WriteByte(major)
	b.WriteByte(0)
	pre := 10
	if major >= 2 {
		pre = 12
	}
	h := header + " "
	for (pre+len(h)+1)%64 != 0 {
		h += " "
	}
	h += "\n"
	n := int64(len(h))
	if hlen >= 0 {
		n = hlen
	}
	if major >= 2 {
		binary.Write(&b, binary.LittleEndian, uint32(n))
	} else {
		binary.Write(&b, binary.LittleEndian, uint16(n))
	}
	b.WriteString(h)
	b.Write(data)
	return b.Bytes()
}

func f64s(n int) []byte {
	b := make([]byte, 8*n)
	for i := 0; i < n; i++ {
		binary.LittleEndian.PutUint64(b[8*i:], uint64(i))
	}
	return b
}

const (
	reTooLarge  = `too large|overflow|exceeds|limit`
	reTruncated = `truncated|unexpected EOF|short`
)

func genNPY() {
	add("dtype_subarray_overflow.npy", "npy", "field subarray (2**32, 2**32) of <f8: the itemsize overflows int64",
		reTooLarge, npy(1, "{'descr': [('a', '<f8', (4294967296, 4294967296))], 'fortran_order': False, 'shape': (1,), }", nil, -1))
	add("dtype_U_overflow.npy", "npy", "'<U4611686018427387904': 4 bytes per character overflows int64",
		reTooLarge+`|out of range|invalid dtype`, npy(1, "{'descr': '<U4611686018427387904', 'fortran_order': False, 'shape': (1,), }", nil, -1))
	add("dtype_S_8EiB.npy", "npy", "one '|S9223372036854775807' element (8 EiB) and 8 data bytes",
		reTooLarge+`|out of range|invalid dtype|`+reTruncated, npy(1, "{'descr': '|S9223372036854775807', 'fortran_order': False, 'shape': (1,), }", f64s(1), -1))
	add("shape_zero_rows_huge_row.npy", "npy", "shape (0, 2**62, 4) <f8: no elements, but a row of 2**67 bytes (numpy: array is too big)",
		reTooLarge, npy(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (0, 4611686018427387904, 4), }", nil, -1))
	add("shape_rows_huge_row_small.npy", "npy", "shape (2**40, 1) <f8: 8 TiB claimed over 16 data bytes",
		reTooLarge+`|`+reTruncated, npy(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (1099511627776, 1), }", f64s(2), -1))
	add("fortran_32gib_claim.npy", "npy", "Fortran-order (65536, 65536) <f8: 32 GiB claimed over 64 data bytes",
		reTooLarge+`|`+reTruncated, npy(1, "{'descr': '<f8', 'fortran_order': True, 'shape': (65536, 65536), }", f64s(8), -1))
	add("dtype_S0_2e62_per_row.npy", "npy", "shape (1, 2**31, 2**31) of |S0: no data bytes, but 2**62 elements in a row; numpy loads it, Parquet cannot hold it",
		reTooLarge, npy(1, "{'descr': '|S0', 'fortran_order': False, 'shape': (1, 2147483648, 2147483648), }", nil, -1))
	cases[len(cases)-1].OKModes = []string{"convert-npy", "run-npy"}
	add("v3_header_len_4gib.npy", "npy", "v3.0 header length 0xffffffff",
		reTooLarge, npy(3, "{'descr': '<f8', 'fortran_order': False, 'shape': (1,), }", nil, 0xffffffff))
	add("v2_header_len_16mib_short.npy", "npy", "v2.0 header length 16 MiB (at the default limit) over a 64-byte header",
		reTruncated+`|`+reTooLarge, npy(2, "{'descr': '<f8', 'fortran_order': False, 'shape': (1,), }", nil, 16<<20))
	add("rec_row_4gib_claim.npy", "npy", "record with a (2**29,) <f8 subarray field: one 4 GiB row over 8 data bytes",
		reTooLarge+`|`+reTruncated, npy(1, "{'descr': [('a', '<f8', (536870912,))], 'fortran_order': False, 'shape': (3,), }", f64s(1), -1))
}

var zipTime = time.Date(1980, 1, 1, 0, 0, 0, 0, time.UTC)

type member struct {
	name           string
	deflate        bool
	data           []byte // stored bytes (compressed already when raw)
	raw            bool   // data is already compressed; crc and sizes as given
	crc            uint32
	csize, usize   uint64
	fixCRC, fixLen bool
}

// zipOf writes an archive; members with raw set keep their declared CRC
// and sizes, whatever the data.
func zipOf(ms ...member) []byte {
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	zw.RegisterCompressor(zip.Deflate, func(w io.Writer) (io.WriteCloser, error) { return flate.NewWriter(w, 6) })
	for _, m := range ms {
		fh := &zip.FileHeader{Name: m.name, Method: zip.Store, Modified: zipTime}
		if m.deflate {
			fh.Method = zip.Deflate
		}
		if !m.raw {
			w, err := zw.CreateHeader(fh)
			if err != nil {
				log.Fatal(err)
			}
			w.Write(m.data)
			continue
		}
		fh.CRC32, fh.CompressedSize64, fh.UncompressedSize64 = m.crc, m.csize, m.usize
		w, err := zw.CreateRaw(fh)
		if err != nil {
			log.Fatal(err)
		}
		w.Write(m.data)
	}
	if err := zw.Close(); err != nil {
		log.Fatal(err)
	}
	return b.Bytes()
}

func deflate(p []byte) []byte {
	var b bytes.Buffer
	w, _ := flate.NewWriter(&b, 9)
	w.Write(p)
	w.Close()
	return b.Bytes()
}

// zeros streams n zero bytes through w in small pieces.
func zeros(w io.Writer, n int64) {
	z := make([]byte, 1<<16)
	for n > 0 {
		k := min(n, int64(len(z)))
		w.Write(z[:k])
		n -= k
	}
}

// eocd returns the offset of the end-of-central-directory record.
func eocd(b []byte) int { return bytes.LastIndex(b, []byte("PK\x05\x06")) }

func genNPZ() {
	good := npy(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (16,), }", f64s(16), -1)
	good2 := npy(1, "{'descr': '<i8', 'fortran_order': False, 'shape': (16,), }", f64s(16), -1)
	valid := zipOf(member{name: "a.npy", data: good}, member{name: "b.npy", data: good2, deflate: true})

	add("zip_truncated_half.npz", "npz", "a two-member archive cut in half (no central directory)",
		`zip|not a valid|archive`, valid[:len(valid)/2])
	add("zip_truncated_eocd.npz", "npz", "the last 10 bytes of the end-of-central-directory record missing",
		`zip|not a valid|archive`, valid[:len(valid)-10])
	garbage := make([]byte, 4096)
	for i := range garbage {
		garbage[i] = byte(i*131 + i>>3)
	}
	add("zip_garbage.npz", "npz", "4 KiB of non-zip bytes",
		`zip|not a valid|archive`, garbage)
	{
		b := bytes.Clone(valid)
		e := eocd(b)
		binary.LittleEndian.PutUint32(b[e+16:], 0x7ffffff0) // central directory offset
		add("zip_cd_offset_beyond.npz", "npz", "central directory offset 2 GiB past the end of the file",
			`zip|not a valid|archive`, b)
	}
	{
		b := bytes.Clone(valid)
		e := eocd(b)
		binary.LittleEndian.PutUint16(b[e+8:], 0xffff)  // entries on this disk
		binary.LittleEndian.PutUint16(b[e+10:], 0xffff) // entries in total
		add("zip_entry_count_lie.npz", "npz", "end record claims 65535 entries (zip64 escape), two present",
			`zip|not a valid|archive`, b)
	}
	{
		b := bytes.Clone(valid)
		copy(b[0:4], "XX\x03\x04") // first local header signature
		add("zip_bad_local_header.npz", "npz", "first member's local header signature destroyed",
			`zip|not a valid|archive|magic|member`, b)
	}
	{
		// CRC mismatch in a stored member: numpy (zipfile) refuses it.
		b := zipOf(member{name: "a.npy", data: good})
		i := bytes.Index(b, good) + len(good) - 3
		b[i] ^= 0x40
		add("zip_stored_crc_mismatch.npz", "npz", "stored member whose data no longer matches its CRC-32 (numpy: BadZipFile: Bad CRC-32)",
			`checksum|crc`, b)
	}
	{
		c := deflate(good)
		b := zipOf(member{name: "a.npy", deflate: true, raw: true, data: c, crc: crc32.ChecksumIEEE(good) ^ 1, csize: uint64(len(c)), usize: uint64(len(good))})
		add("zip_deflate_crc_mismatch.npz", "npz", "deflated member with a wrong CRC-32 (numpy: BadZipFile: Bad CRC-32)",
			`checksum|crc`, b)
	}
	{
		c := deflate(good)
		c2 := bytes.Clone(c)
		for i := len(c2) / 3; i < len(c2)/3+6; i++ {
			c2[i] ^= 0xff
		}
		b := zipOf(member{name: "a.npy", deflate: true, raw: true, data: c2, crc: crc32.ChecksumIEEE(good), csize: uint64(len(c2)), usize: uint64(len(good))})
		add("zip_deflate_corrupt.npz", "npz", "deflated member with 6 bytes of its stream inverted",
			`flate|corrupt|checksum|crc|truncated|malformed|zip`, b)
	}
	{
		c := deflate(good)
		b := zipOf(member{name: "a.npy", deflate: true, raw: true, data: c[:len(c)/2], crc: crc32.ChecksumIEEE(good), csize: uint64(len(c) / 2), usize: uint64(len(good))})
		add("zip_deflate_truncated.npz", "npz", "deflated member whose stream stops halfway",
			`truncated|unexpected EOF|flate|corrupt`, b)
	}
	{
		b := zipOf(member{name: "a.npy", raw: true, data: good, crc: crc32.ChecksumIEEE(good), csize: 1 << 62, usize: 1 << 62})
		add("zip_stored_size_4eib.npz", "npz", "stored member declaring 2**62 bytes (zip64) over a 192-byte npy",
			`zip|size|truncated|beyond|archive|too large|exceeds`, b)
	}
	{
		h := npy(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (536870912,), }", f64s(4), -1)
		b := zipOf(member{name: "a.npy", raw: true, data: h, crc: crc32.ChecksumIEEE(h), csize: 4<<30 + 128, usize: 4<<30 + 128})
		add("zip_stored_claims_4gib.npz", "npz", "stored member and its npy header both claim 4 GiB, 32 data bytes present",
			reTruncated+`|size|beyond|archive|too large|exceeds`, b)
	}
	{
		// A small bomb: the header claims 4 GiB of <f8, the zip 4 GiB, and the
		// Deflate stream really expands to 1 MiB of zeros before it ends.
		h := npy(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (536870912,), }", nil, -1)
		var c bytes.Buffer
		w, _ := flate.NewWriter(&c, 9)
		w.Write(h)
		zeros(w, 1<<20)
		w.Close()
		b := zipOf(member{name: "bomb.npy", deflate: true, raw: true, data: c.Bytes(), crc: 0, csize: uint64(c.Len()), usize: 4<<30 + 128})
		add("zip_bomb_claims_4gib.npz", "npz", "deflated member claiming 4 GiB (zip and npy header), expanding to 1 MiB",
			reTruncated+`|checksum|crc`, b)
	}
	{
		// Fortran order in a compressed member must be buffered whole to come
		// out in row order: the claim (960 MB, under the 1 GiB buffer limit)
		// must not be allocated up front.
		h := npy(1, "{'descr': '<f8', 'fortran_order': True, 'shape': (12000, 10000), }", f64s(16), -1)
		c := deflate(h)
		b := zipOf(member{name: "f.npy", deflate: true, raw: true, data: c, crc: crc32.ChecksumIEEE(h), csize: uint64(len(c)), usize: 960000128})
		add("zip_fortran_960mb_claim.npz", "npz", "deflated Fortran-order (12000, 10000) <f8 member: 960 MB claimed, 128 bytes present",
			reTruncated+`|`+reTooLarge+`|checksum|crc`, b)
	}
	{
		b := zipOf(member{name: "a.npy", data: good}, member{name: "a.npy", data: good2})
		add("zip_duplicate_member.npz", "npz", "two members named a.npy",
			`duplicate|twice|more than once`, b)
	}
	add("zip_only_text.npz", "npz", "an archive with one text member and no arrays",
		`no .npy|no npy|not an npy|no arrays|no members|matched no`, zipOf(member{name: "readme.txt", data: []byte("hello\n")}))
}

// --- Parquet -----------------------------------------------------------

type pqRow struct {
	X int64   `parquet:"x"`
	Y float64 `parquet:"y"`
}

// foreignParquet writes a plain two-column file with parquet-go: one row
// group, one uncompressed page per column, no dictionary.
func foreignParquet() []byte {
	var b bytes.Buffer
	w := parquet.NewGenericWriter[pqRow](&b, parquet.Compression(&parquet.Uncompressed), parquet.PageBufferSize(1<<20))
	rows := make([]pqRow, 200)
	for i := range rows {
		rows[i] = pqRow{X: int64(i), Y: float64(i) / 2}
	}
	if _, err := w.Write(rows); err != nil {
		log.Fatal(err)
	}
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}
	return b.Bytes()
}

// npyflowParquet writes a file with parquetio from a (100,) |S5 array, so
// it carries npyflow's metadata.
func npyflowParquet() []byte {
	dt, err := npyio.NewString(npyio.Bytes, 5)
	if err != nil {
		log.Fatal(err)
	}
	var src bytes.Buffer
	w, err := npyio.NewWriter(&src, &npyio.Header{DType: dt, Shape: []int{100}})
	if err != nil {
		log.Fatal(err)
	}
	w.Write(bytes.Repeat([]byte("abcde"), 100))
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}
	open := func() ([]*npyio.Reader, error) {
		r, err := npyio.NewReaderAt(bytes.NewReader(src.Bytes()), int64(src.Len()), nil)
		return []*npyio.Reader{r}, err
	}
	var out bytes.Buffer
	if _, err := parquetio.WriteArray(&out, open, "s", &parquetio.Options{Compression: "none"}, nil); err != nil {
		log.Fatal(err)
	}
	return out.Bytes()
}

var compact = &thrift.CompactProtocol{}

func footer(b []byte) (*format.FileMetaData, int) {
	n := int(binary.LittleEndian.Uint32(b[len(b)-8:]))
	start := len(b) - 8 - n
	var md format.FileMetaData
	if err := thrift.Unmarshal(compact, b[start:len(b)-8], &md); err != nil {
		log.Fatal(err)
	}
	return &md, start
}

// withFooter replaces the footer of b by md.
func withFooter(b []byte, start int, md *format.FileMetaData) []byte {
	f, err := thrift.Marshal(compact, md)
	if err != nil {
		log.Fatal(err)
	}
	out := append(bytes.Clone(b[:start]), f...)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(f)))
	return append(out, "PAR1"...)
}

// editParquet decodes the footer, lets edit change it and writes it back.
func editParquet(b []byte, edit func(md *format.FileMetaData)) []byte {
	md, start := footer(b)
	for i := range md.RowGroups {
		for j := range md.RowGroups[i].Columns {
			c := &md.RowGroups[i].Columns[j]
			c.ColumnIndexOffset, c.ColumnIndexLength, c.OffsetIndexOffset, c.OffsetIndexLength = 0, 0, 0, 0
		}
	}
	edit(md)
	return withFooter(b, start, md)
}

// editPage rewrites the first page header of column col, shifting what
// follows and fixing the footer's offsets.
func editPage(b []byte, col int, edit func(h *format.PageHeader)) []byte {
	md, start := footer(b)
	cc := &md.RowGroups[0].Columns[col]
	off := cc.MetaData.DataPageOffset
	r := compact.NewReaderFromBytes(b[off:start])
	var h format.PageHeader
	if err := thrift.NewDecoder(r).Decode(&h); err != nil {
		log.Fatal(err)
	}
	old := r.BytesRead()
	edit(&h)
	nh, err := thrift.Marshal(compact, &h)
	if err != nil {
		log.Fatal(err)
	}
	delta := int64(len(nh) - old)
	out := append(bytes.Clone(b[:off]), nh...)
	out = append(out, b[off+int64(old):start]...)
	for i := range md.RowGroups {
		for j := range md.RowGroups[i].Columns {
			c := &md.RowGroups[i].Columns[j]
			c.ColumnIndexOffset, c.ColumnIndexLength, c.OffsetIndexOffset, c.OffsetIndexLength = 0, 0, 0, 0
			m := &c.MetaData
			if m.DataPageOffset > off {
				m.DataPageOffset += delta
				if c.FileOffset > off {
					c.FileOffset += delta
				}
			}
			if i == 0 && j == col {
				m.TotalCompressedSize += delta
				m.TotalUncompressedSize += delta
			}
		}
	}
	return withFooter(out, len(out), md)
}

func genParquet() {
	pq := foreignParquet()
	add("pq_truncated_half.parquet", "parquet", "a Parquet file cut in half (no footer)",
		`parquet|magic|footer|truncated|invalid|EOF`, pq[:len(pq)/2])
	add("pq_truncated_magic.parquet", "parquet", "the trailing PAR1 magic cut off",
		`parquet|magic|footer|truncated|invalid|EOF`, pq[:len(pq)-2])
	{
		b := bytes.Clone(pq)
		binary.LittleEndian.PutUint32(b[len(b)-8:], 0x7ffffff0)
		add("pq_footer_len_2gib.parquet", "parquet", "footer length field claims 2 GiB",
			`parquet|footer|size|truncated|invalid|too large|exceeds`, b)
	}
	{
		b := bytes.Clone(pq)
		_, start := footer(b)
		for i := start + 20; i < len(b)-30; i += 7 {
			b[i] ^= 0xa5
		}
		add("pq_footer_garbage.parquet", "parquet", "footer bytes scrambled",
			`parquet|footer|thrift|decod|invalid|malformed|metadata|corrupt`, b)
	}
	addOK("pq_num_rows_lie.parquet", "parquet", "file metadata claims 2**40 rows over a 200-row row group: the row group's 200 rows are read, with a warning (as DuckDB does)",
		editParquet(pq, func(md *format.FileMetaData) { md.NumRows = 1 << 40 }))
	add("pq_rowgroup_rows_lie.parquet", "parquet", "the row group claims 2**40 rows (file 2**40 too), pages hold 200",
		`rows|mismatch|disagree|parquet|corrupt|invalid|truncated|too large`, editParquet(pq, func(md *format.FileMetaData) {
			md.NumRows = 1 << 40
			md.RowGroups[0].NumRows = 1 << 40
		}))
	add("pq_rowgroup_rows_lie_small.parquet", "parquet", "the row group (and file) claim 2**25 rows, pages hold 200",
		`rows|mismatch|disagree|parquet|corrupt|invalid|truncated|too large|values`, editParquet(pq, func(md *format.FileMetaData) {
			md.NumRows = 1 << 25
			md.RowGroups[0].NumRows = 1 << 25
		}))
	addOK("pq_num_values_lie.parquet", "parquet", "column chunk x's metadata claims 2**40 values; its pages are right (they are what counts)",
		editParquet(pq, func(md *format.FileMetaData) {
			md.RowGroups[0].Columns[0].MetaData.NumValues = 1 << 40
		}))
	add("pq_chunk_offset_beyond.parquet", "parquet", "column chunk x starts 1 TiB past the end of the file",
		`rows|offset|beyond|parquet|corrupt|invalid|truncated|EOF|out of range`, editParquet(pq, func(md *format.FileMetaData) {
			md.RowGroups[0].Columns[0].MetaData.DataPageOffset = 1 << 40
		}))
	add("pq_chunk_size_lie.parquet", "parquet", "column chunk x claims 2**40 compressed bytes",
		`rows|size|beyond|parquet|corrupt|invalid|truncated|EOF|too large`, editParquet(pq, func(md *format.FileMetaData) {
			md.RowGroups[0].Columns[0].MetaData.TotalCompressedSize = 1 << 40
		}))
	add("pq_page_uncompressed_2gib.parquet", "parquet", "first page of x is stored uncompressed but claims 2 GiB uncompressed: the header lies about the page (a decoder would allocate the claimed size)",
		`stored uncompressed in .* bytes claims 2147483632 bytes`, editPage(pq, 0, func(h *format.PageHeader) { h.UncompressedPageSize = 0x7ffffff0 }))
	add("pq_page_compressed_2gib.parquet", "parquet", "first page of x claims 2 GiB compressed",
		`page|size|parquet|corrupt|invalid|truncated|too large|EOF`, editPage(pq, 0, func(h *format.PageHeader) { h.CompressedPageSize = 0x7ffffff0 }))
	add("pq_page_values_lie.parquet", "parquet", "first page of x claims 2**30 values in 1600 bytes",
		`page|values|parquet|corrupt|invalid|truncated|too large|EOF|mismatch`, editPage(pq, 0, func(h *format.PageHeader) {
			if h.DataPageHeader.Valid {
				h.DataPageHeader.V.NumValues = 1 << 30
			}
			if h.DataPageHeaderV2.Valid {
				h.DataPageHeaderV2.V.NumValues = 1 << 30
				h.DataPageHeaderV2.V.NumRows = 1 << 30
			}
		}))
	{
		np := npyflowParquet()
		lie := func(from, to string) []byte {
			return editParquet(np, func(md *format.FileMetaData) {
				for i := range md.KeyValueMetadata {
					if md.KeyValueMetadata[i].Key == parquetio.MetaTable {
						v := md.KeyValueMetadata[i].Value
						if !strings.Contains(v, from) {
							log.Fatalf("metadata %s lacks %s", v, from)
						}
						md.KeyValueMetadata[i].Value = strings.Replace(v, from, to, 1)
					}
				}
			})
		}
		addOK("pq_meta_descr_8eib.parquet", "parquet", "npyflow metadata says the column is |S9223372036854775807: unusable, so the Parquet schema is used",
			lie("|S5", "|S9223372036854775807"))
		add("pq_meta_shape_lie.parquet", "parquet", "npyflow metadata gives the array a row shape (2**31, 2**31)",
			reTooLarge+`|metadata|parquet|mismatch|invalid|shape`, lie(`"shape":[100]`, `"shape":[100,2147483648,2147483648]`))
	}
}

// --- Arrow -------------------------------------------------------------

// arrowRecord is one batch of 1000 rows: x int64 and y int16.
func arrowRecord(mem memory.Allocator) arrow.RecordBatch {
	s := arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int64}, {Name: "y", Type: arrow.PrimitiveTypes.Int16}}, nil)
	b := array.NewRecordBuilder(mem, s)
	defer b.Release()
	for i := 0; i < 1000; i++ {
		b.Field(0).(*array.Int64Builder).Append(int64(i))
		b.Field(1).(*array.Int16Builder).Append(int16(i))
	}
	return b.NewRecordBatch()
}

func arrowBytes(file bool) []byte {
	mem := memory.NewGoAllocator()
	rec := arrowRecord(mem)
	defer rec.Release()
	var b bytes.Buffer
	var w interface {
		Write(arrow.RecordBatch) error
		Close() error
	}
	var err error
	if file {
		w, err = ipc.NewFileWriter(&b, ipc.WithSchema(rec.Schema()), ipc.WithAllocator(mem))
	} else {
		w = ipc.NewWriter(&b, ipc.WithSchema(rec.Schema()), ipc.WithAllocator(mem))
	}
	if err != nil {
		log.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		log.Fatal(err)
	}
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}
	return b.Bytes()
}

// patchInt64 replaces every little-endian int64 equal to from in
// b[lo:hi] by to, and reports how many it replaced.
func patchInt64(b []byte, lo, hi int, from, to int64) int {
	n := 0
	for i := lo; i+8 <= hi; i++ {
		if int64(binary.LittleEndian.Uint64(b[i:])) == from {
			binary.LittleEndian.PutUint64(b[i:], uint64(to))
			n++
			i += 7
		}
	}
	return n
}

// batchMessage returns the bounds of the record batch's metadata in an IPC
// stream: the second message (after the schema).
func batchMessage(b []byte) (lo, hi int) {
	off := 0
	for k := 0; k < 2; k++ {
		if binary.LittleEndian.Uint32(b[off:]) != 0xffffffff {
			log.Fatal("no continuation marker")
		}
		n := int(binary.LittleEndian.Uint32(b[off+4:]))
		lo, hi = off+8, off+8+n
		if k == 0 {
			off = hi // schema messages have no body
		}
	}
	return lo, hi
}

func genArrow() {
	file := arrowBytes(true)
	stream := arrowBytes(false)
	add("arrow_file_truncated_half.arrow", "arrow", "an Arrow IPC file cut in half",
		`arrow|ipc|truncated|EOF|footer|magic|invalid|short`, file[:len(file)/2])
	add("arrow_file_no_footer_magic.arrow", "arrow", "an Arrow IPC file without its trailing ARROW1",
		`arrow|ipc|truncated|EOF|footer|magic|invalid|short`, file[:len(file)-6])
	{
		b := bytes.Clone(file)
		binary.LittleEndian.PutUint32(b[len(b)-10:], 0x7ffffff0)
		add("arrow_file_footer_len_2gib.arrow", "arrow", "IPC file footer length claims 2 GiB",
			`arrow|ipc|footer|size|invalid|truncated|too large|EOF`, b)
	}
	add("arrow_stream_truncated.arrow", "arrow", "an IPC stream cut in the middle of the record batch body",
		`arrow|ipc|truncated|EOF|invalid|short`, stream[:len(stream)-2000])
	{
		b := bytes.Clone(stream)
		binary.LittleEndian.PutUint32(b[4:], 0x7ffffff0)
		add("arrow_stream_meta_len_2gib.arrow", "arrow", "first IPC message claims 2 GiB of metadata",
			`arrow|ipc|truncated|EOF|invalid|size|too large|short`, b)
	}
	{
		b := bytes.Clone(stream)
		lo, hi := batchMessage(b)
		if patchInt64(b, lo, hi, 10000, 1<<40) == 0 { // bodyLength: 8000 + 2000
			log.Fatal("no body length found")
		}
		add("arrow_stream_body_len_1tib.arrow", "arrow", "the record batch message claims a 1 TiB body",
			`arrow|ipc|truncated|EOF|invalid|body|size|too large|short`, b)
	}
	{
		b := bytes.Clone(stream)
		lo, hi := batchMessage(b)
		if patchInt64(b, lo, hi, 1000, 1<<40) < 2 { // batch length and field node lengths
			log.Fatal("no row counts found")
		}
		add("arrow_stream_rows_lie.arrow", "arrow", "the record batch and its columns claim 2**40 rows over 1000 rows of buffers",
			`arrow|ipc|invalid|length|buffer|rows|too large|truncated|mismatch|short`, b)
	}
	{
		b := bytes.Clone(stream)
		lo, hi := batchMessage(b)
		if patchInt64(b, lo, hi, 8000, 1<<40) == 0 { // x's data buffer length
			log.Fatal("no buffer length found")
		}
		add("arrow_stream_buffer_len_lie.arrow", "arrow", "column x's data buffer claims 1 TiB inside a 10000-byte body",
			`arrow|ipc|invalid|buffer|body|size|too large|truncated|out of|short`, b)
	}
	{
		b := bytes.Clone(file)
		lo, hi := 8, len(b)
		// Rows lie inside the file format too (the footer is left alone).
		if patchInt64(b, lo, hi, 1000, 1<<40) < 2 {
			log.Fatal("no row counts found in file")
		}
		add("arrow_file_rows_lie.arrow", "arrow", "IPC file whose record batch claims 2**40 rows",
			`arrow|ipc|invalid|length|buffer|rows|too large|truncated|mismatch|short`, b)
	}
}
