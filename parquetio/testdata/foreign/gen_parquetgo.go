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
// pgo_legacy_list.parquet: a slice of structs, which parquet-go writes as
// the legacy 2-level list (a repeated group without LIST annotation, as
// old parquet-mr and Hive do), three points in every row, an OPTIONAL
// field among them; pgo_legacy_list_ragged.parquet: the same with row 5
// holding two.
package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"log"
	"os"
	"strconv"
	"strings"

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

type point struct {
	X   int32    `parquet:"x"`
	Y   *float64 `parquet:"y,optional"`
	Tag string   `parquet:"tag"`
}

type legacyRow struct {
	ID     int64   `parquet:"id"`
	Points []point `parquet:"points"`
}

// legacyLists writes rows of three points each (two in row ragged, if
// ragged >= 0) as name, and name's JSON: the values parquet-go reads back.
func legacyLists(name string, ragged int) {
	var rows []legacyRow
	for i := 0; i < 40; i++ {
		r := legacyRow{ID: int64(i) * 7}
		for j := 0; j < 3; j++ {
			if i == ragged && j == 2 {
				break
			}
			p := point{X: int32(i*10 + j - 200), Tag: strings.Repeat("é", (i+j)%4) + strconv.Itoa(i)}
			if (i+j)%7 != 0 {
				y := float64(i) + float64(j)/4
				p.Y = &y
			}
			r.Points = append(r.Points, p)
		}
		rows = append(rows, r)
	}
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[legacyRow](&buf, parquet.PageBufferSize(1<<10))
	if _, err := w.Write(rows); err != nil {
		log.Fatal(err)
	}
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}
	b := buf.Bytes()
	if err := os.WriteFile(name, b, 0o644); err != nil {
		log.Fatal(err)
	}
	got, err := parquet.Read[legacyRow](bytes.NewReader(b), int64(len(b)))
	if err != nil {
		log.Fatal(err)
	}
	cols := []column{{Name: "id", Type: "BIGINT"}, {Name: "points", Type: "repeated group"}}
	for _, r := range got {
		cols[0].Values = append(cols[0].Values, strconv.FormatInt(r.ID, 10))
		var ps []any
		for _, p := range r.Points {
			var y any
			if p.Y != nil {
				y = strconv.FormatFloat(*p.Y, 'g', -1, 64)
			}
			ps = append(ps, map[string]any{"x": strconv.Itoa(int(p.X)), "y": y, "tag": p.Tag})
		}
		cols[1].Values = append(cols[1].Values, ps)
	}
	m := map[string]any{"file": name, "producer": "parquet-go v0.32.0", "rows": len(got), "columns": cols,
		"schema": parquet.SchemaOf(legacyRow{}).String()}
	j, err := json.Marshal(m)
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(name[:len(name)-len(".parquet")]+".json", append(j, '\n'), 0o644); err != nil {
		log.Fatal(err)
	}
}

func main() {
	legacyLists("pgo_legacy_list.parquet", -1)
	legacyLists("pgo_legacy_list_ragged.parquet", 5)
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
