//go:build ignore

// gen_parquetgo.go writes the parquet-go part of parquetio's foreign-file
// corpus: files whose pages carry CRCs (parquet-go writes a CRC-32 in
// every page header), and next to each X.parquet X.json with the values
// as parquet-go itself reads the file back. Run from this folder:
//
//	go run gen_parquetgo.go
//
// Files: pgo_crc.parquet (SNAPPY, 2 row groups, valid CRCs) and
// pgo_crc_bad.parquet (uncompressed; one bit of the id column's first
// page flipped after writing, so that page's CRC no longer matches: a
// reader that verifies CRCs must refuse it naming the column; its JSON
// holds the values as written and parquet-go's own refusal).
package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"log"
	"os"
	"strconv"

	"github.com/parquet-go/parquet-go"
)

type row struct {
	ID int64   `parquet:"id"`
	X  float64 `parquet:"x"`
	S  string  `parquet:"s"`
}

// marker is the id of row 3 (neither the least nor the greatest of its
// page, so not in the statistics): its bytes are damaged in the bad file.
const marker = 0x05A5B5C5

func rows() []row {
	var out []row
	for i := 0; i < 3000; i++ {
		id := int64(i) * 1000003
		if i == 3 {
			id = marker
		}
		out = append(out, row{ID: id, X: float64(i) / 8, S: "r" + strconv.Itoa(i%97)})
	}
	return out
}

func write(codec parquet.WriterOption) []byte {
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[row](&buf, codec, parquet.PageBufferSize(8<<10))
	rs := rows()
	for _, part := range [][]row{rs[:1700], rs[1700:]} {
		if _, err := w.Write(part); err != nil {
			log.Fatal(err)
		}
		if err := w.Flush(); err != nil { // a row group each
			log.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}
	return buf.Bytes()
}

type column struct {
	Name   string `json:"name"`
	Type   string `json:"type"`
	Nulls  int    `json:"nulls"`
	Values []any  `json:"values"`
}

// emit writes b as name, and name's JSON: the values as parquet-go reads
// the file valid (before damaging it), and parquet-go's own error reading
// damaged (if not nil).
func emit(name string, b, valid []byte, note string) {
	if err := os.WriteFile(name, b, 0o644); err != nil {
		log.Fatal(err)
	}
	var producerErr string
	if _, err := parquet.Read[row](bytes.NewReader(b), int64(len(b))); err != nil {
		producerErr = err.Error()
	}
	got, err := parquet.Read[row](bytes.NewReader(valid), int64(len(valid)))
	if err != nil {
		log.Fatal(err)
	}
	cols := []column{{Name: "id", Type: "BIGINT"}, {Name: "x", Type: "DOUBLE"}, {Name: "s", Type: "VARCHAR"}}
	for _, r := range got {
		cols[0].Values = append(cols[0].Values, strconv.FormatInt(r.ID, 10))
		cols[1].Values = append(cols[1].Values, strconv.FormatFloat(r.X, 'g', -1, 64))
		cols[2].Values = append(cols[2].Values, r.S)
	}
	m := map[string]any{"file": name, "producer": "parquet-go v0.32.0", "rows": len(got), "note": note, "columns": cols}
	if producerErr != "" {
		m["producer_error"] = producerErr
	}
	j, err := json.Marshal(m)
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(name[:len(name)-len(".parquet")]+".json", append(j, '\n'), 0o644); err != nil {
		log.Fatal(err)
	}
}

func main() {
	good := write(parquet.Compression(&parquet.Snappy))
	emit("pgo_crc.parquet", good, good, "page CRCs, SNAPPY, 2 row groups")
	valid := write(parquet.Compression(&parquet.Uncompressed))
	b := bytes.Clone(valid)
	var m [8]byte
	binary.LittleEndian.PutUint64(m[:], marker)
	k := bytes.Index(b, m[:])
	if k < 0 || bytes.Index(b[k+1:], m[:]) >= 0 {
		log.Fatal("the marker is not in the file exactly once")
	}
	b[k] ^= 0x10 // the id of row 3 becomes 0x05A5B5D5
	emit("pgo_crc_bad.parquet", b, valid, "one bit of the id column's first page flipped after writing: a page CRC mismatch")
}
