package zarr

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// fixedStrings packs items as numpy's fixed-width strings of descr (<U n,
// >U n or |S n), NUL-padded.
func fixedStrings(descr string, items []string) []byte {
	d := DType{Descr: descr}
	es := d.ItemSize()
	out := make([]byte, es*len(items))
	for i, it := range items {
		e := out[i*es : (i+1)*es]
		if d.Kind() == 'S' {
			copy(e, it)
			continue
		}
		p := 0
		for _, r := range it {
			if descr[0] == '>' {
				binary.BigEndian.PutUint32(e[p:], uint32(r))
			} else {
				binary.LittleEndian.PutUint32(e[p:], uint32(r))
			}
			p += 4
		}
	}
	return out
}

func writeStrings(t *testing.T, s Store, path string, items []string, o CreateOptions) {
	t.Helper()
	ctx := context.Background()
	o.Shape = []int64{int64(len(items))}
	o.Strings = "vlen"
	w, err := CreateArray(ctx, s, path, o)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WriteRows(ctx, fixedStrings(o.DType.Descr, items)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestWriteVlenAsZarrPython writes the items of zarr-python's raw vlen
// fixtures (vlen_utf8_raw, vlen_bytes_raw: no compressor) and gets the
// bytes of zarr-python's chunks, overhanging items included.
func TestWriteVlenAsZarrPython(t *testing.T) {
	exp := loadExpect(t, filepath.Join("testdata", "v2_expect.json"))
	for _, c := range []struct {
		name, descr string
		chunk       int64
		filter      string
	}{
		{"vlen_utf8_raw", "<U5", 2, "vlen-utf8"},
		{"vlen_bytes_raw", "|S3", 3, "vlen-bytes"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var items []string
			for _, v := range exp[c.name].Values {
				s := v.(string)
				if c.filter == "vlen-bytes" {
					b, err := hex.DecodeString(s)
					if err != nil {
						t.Fatal(err)
					}
					s = string(b)
				}
				items = append(items, s)
			}
			s := &MemStore{}
			writeStrings(t, s, "x", items, CreateOptions{Format: 2, Chunks: []int64{c.chunk}, DType: DType{Descr: c.descr}, Compression: "none"})
			n := 0
			for k := int64(0); k*c.chunk < int64(len(items)); k++ {
				want, err := os.ReadFile(filepath.Join("testdata", "v2.zarr", c.name, fmt.Sprint(k)))
				if err != nil {
					t.Fatal(err)
				}
				if got := s.M[fmt.Sprintf("x/%d", k)]; !bytes.Equal(got, want) {
					t.Errorf("chunk %d: %q, zarr-python wrote %q", k, got, want)
				}
				n++
			}
			if n < 2 {
				t.Fatalf("%d chunks compared", n)
			}
			var meta struct {
				DType   string           `json:"dtype"`
				Filters []map[string]any `json:"filters"`
			}
			if err := json.Unmarshal(s.M["x/.zarray"], &meta); err != nil {
				t.Fatal(err)
			}
			if meta.DType != "|O" || len(meta.Filters) != 1 || meta.Filters[0]["id"] != c.filter {
				t.Errorf(".zarray: dtype %s, filters %v", meta.DType, meta.Filters)
			}
		})
	}
}

// TestVlenRoundTrip writes U and S arrays as variable-length strings (v2
// and v3, compressed, both byte orders of U, a missing chunk) and reads
// them back as fixed-width strings of the longest item.
func TestVlenRoundTrip(t *testing.T) {
	ctx := context.Background()
	text := []string{"a", "", "grüße", "x\x00y", "日本語テキスト", "end", "", "z"}
	raw := []string{"ab", "", "\x00\x01\x02", "x", "\xff\xfe", "long bytes here"}
	cases := []struct {
		format int
		descr  string
		items  []string
		comp   string
		v3type string
	}{
		{2, "<U9", text, "blosc", ""},
		{2, ">U7", text, "zstd", ""},
		{3, "<U7", text, "zstd", "string"},
		{3, ">U12", text, "none", "string"},
		{2, "|S16", raw, "zstd", ""},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("v%d/%s/%s", c.format, c.descr, c.comp), func(t *testing.T) {
			s := &MemStore{}
			writeStrings(t, s, "g/x", c.items, CreateOptions{Format: c.format, Chunks: []int64{3}, DType: DType{Descr: c.descr}, Compression: c.comp, Threads: 2})
			if c.v3type != "" {
				var meta struct {
					DataType string `json:"data_type"`
					Codecs   []Codec
				}
				json.Unmarshal(s.M["g/x/zarr.json"], &meta)
				if meta.DataType != c.v3type || !strings.Contains(string(s.M["g/x/zarr.json"]), `"vlen-utf8"`) {
					t.Errorf("zarr.json: data_type %q, codecs %s", meta.DataType, s.M["g/x/zarr.json"])
				}
			}
			a, err := OpenArray(ctx, s, "g/x")
			if err != nil {
				t.Fatal(err)
			}
			width, err := a.StringWidth(ctx)
			if err != nil {
				t.Fatal(err)
			}
			want := 0
			for _, it := range c.items {
				if a.DType.Kind() == 'U' {
					want = max(want, utf8.RuneCountInString(it))
				} else {
					want = max(want, len(it))
				}
			}
			if width != want {
				t.Errorf("StringWidth %d, want %d", width, want)
			}
			d := a.FixedType(width)
			got := make([]byte, len(c.items)*d.ItemSize())
			if err := a.ReadFixed(ctx, []int64{0}, []int64{int64(len(c.items))}, width, got); err != nil {
				t.Fatal(err)
			}
			if wantB := fixedStrings(d.Descr, c.items); !bytes.Equal(got, wantB) {
				t.Errorf("read back as %s:\n%q\nwant\n%q", d.Descr, got, wantB)
			}
			// The chunk of items 3-5 missing: they read as the fill, "".
			key := "g/x/1"
			if c.format == 3 {
				key = "g/x/c/1"
			}
			if _, ok := s.M[key]; !ok {
				t.Fatalf("no chunk %s", key)
			}
			delete(s.M, key)
			if err := a.ReadFixed(ctx, []int64{2}, []int64{3}, width, got[:3*d.ItemSize()]); err != nil {
				t.Fatal(err)
			}
			if wantB := fixedStrings(d.Descr, []string{c.items[2], "", ""}); !bytes.Equal(got[:3*d.ItemSize()], wantB) {
				t.Errorf("missing chunk read as %q", got[:3*d.ItemSize()])
			}
		})
	}
}

// TestVlenErrors: what cannot be written or read as fixed-width strings
// fails with one line naming the array (and chunk) and the reason.
func TestVlenErrors(t *testing.T) {
	ctx := context.Background()
	u := func(rs ...uint32) []byte {
		b := make([]byte, 4*len(rs))
		for i, r := range rs {
			binary.LittleEndian.PutUint32(b[4*i:], r)
		}
		return b
	}
	create := []struct {
		name string
		o    CreateOptions
		want string
	}{
		{"bytes in v3", CreateOptions{Format: 3, Shape: []int64{2}, DType: DType{Descr: "|S4"}, Strings: "vlen"}, "Zarr v3 has no registered variable-length bytes type"},
		{"sharded", CreateOptions{Format: 3, Shape: []int64{4}, Chunks: []int64{2}, Shards: []int64{4}, DType: DType{Descr: "<U4"}, Strings: "vlen"}, "sharding variable-length strings"},
		{"unknown", CreateOptions{Format: 2, Shape: []int64{2}, DType: DType{Descr: "<U4"}, Strings: "utf16"}, `strings "utf16": fixed or vlen`},
	}
	for _, c := range create {
		t.Run(c.name, func(t *testing.T) {
			_, err := CreateArray(ctx, &MemStore{}, "x", c.o)
			if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("error %v, want %q", err, c.want)
			}
		})
	}
	t.Run("numbers stay", func(t *testing.T) {
		w, err := CreateArray(ctx, &MemStore{}, "x", CreateOptions{Format: 2, Shape: []int64{2}, DType: DType{Descr: "<f8"}, Strings: "vlen"})
		if err != nil {
			t.Fatal(err)
		}
		var meta struct {
			DType   string `json:"dtype"`
			Filters []any  `json:"filters"`
		}
		json.Unmarshal(w.Metadata(), &meta)
		if w.Array().DType.Descr != "<f8" || w.Array().DType.VarString || meta.DType != "<f8" || meta.Filters != nil {
			t.Errorf("a <f8 array with strings vlen became %v: %s", w.Array().DType, w.Metadata())
		}
	})
	t.Run("surrogate", func(t *testing.T) {
		w, err := CreateArray(ctx, &MemStore{}, "x", CreateOptions{Format: 2, Shape: []int64{4}, Chunks: []int64{2}, DType: DType{Descr: "<U2"}, Strings: "vlen", Threads: 1})
		if err != nil {
			t.Fatal(err)
		}
		err = w.WriteRows(ctx, append(u('o', 'k', 'a', 0), u('b', 0xd800, 0x110000, 0)...))
		if err == nil {
			err = w.Close(ctx)
		}
		if err == nil || !strings.Contains(err.Error(), "chunk x/1: element 0 of the chunk: character 1 is 0xd800, not a Unicode scalar value") {
			t.Fatalf("error %v", err)
		}
	})
	// Items a fixed-width string cannot hold, written as zarr-python would.
	meta := `{"zarr_format": 2, "shape": [3], "chunks": [3], "dtype": "|O", "compressor": null, "fill_value": "", "order": "C", "filters": [{"id": "%s"}]}`
	vl := func(items ...string) []byte {
		var b [][]byte
		for _, it := range items {
			b = append(b, []byte(it))
		}
		return encodeVlen(b)
	}
	read := []struct {
		name, filter string
		chunk        []byte
		width        int // ReadFixed's width; -1: StringWidth's error
		want         string
	}{
		{"trailing NUL", "vlen-bytes", vl("a", "bc\x00", ""), -1, "chunk x/0: item 1 ends in NUL"},
		{"trailing NUL text", "vlen-utf8", vl("a", "", "d\x00"), -1, "chunk x/0: item 2 ends in NUL"},
		{"not UTF-8", "vlen-utf8", vl("a", "\xc3(", ""), -1, "chunk x/0: vlen-utf8: item 1 is not UTF-8"},
		{"too narrow", "vlen-utf8", vl("a", "héllo", ""), 4, "item 1 is longer than <U4"},
		{"too narrow bytes", "vlen-bytes", vl("abc", "", ""), 2, "item 0 of 3 bytes is longer than |S2"},
	}
	for _, c := range read {
		t.Run(c.name, func(t *testing.T) {
			s := &MemStore{M: map[string][]byte{"x/.zarray": []byte(fmt.Sprintf(meta, c.filter)), "x/0": c.chunk}}
			a, err := OpenArray(ctx, s, "x")
			if err != nil {
				t.Fatal(err)
			}
			if c.width < 0 {
				_, err = a.StringWidth(ctx)
			} else {
				err = a.ReadFixed(ctx, []int64{0}, []int64{3}, c.width, make([]byte, 3*a.FixedType(c.width).ItemSize()))
			}
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "zarr array x") {
				t.Fatalf("error %v, want %q", err, c.want)
			}
		})
	}
}
