package npyio

import (
	"bytes"
	"testing"
)

// TestNPZMemberLookup: a key finds the first member of that key before a
// member of that zip name, from the index or, once Members is changed, by
// a scan, with the same answers.
func TestNPZMemberLookup(t *testing.T) {
	var buf bytes.Buffer
	z := NewNPZWriter(&buf, false)
	for _, k := range []string{"x", "a.npy", "a"} { // zip names x.npy, a.npy.npy, a.npy
		w, err := z.Create(k, &Header{DType: Float64Type, Shape: []int{0}})
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	r, err := NewNPZReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()), nil)
	if err != nil {
		t.Fatal(err)
	}
	check := func(how string, y bool) {
		for key, want := range map[string]string{"x": "x.npy", "x.npy": "x.npy", "a.npy": "a.npy.npy", "a": "a.npy", "a.npy.npy": "a.npy.npy"} {
			if m := r.Member(key); m == nil || m.Name != want {
				t.Errorf("%s: Member(%q) = %v, want %s", how, key, m, want)
			}
		}
		if m := r.Member("y"); (m != nil) != y {
			t.Errorf("%s: Member(y) = %v", how, m)
		}
	}
	check("index", false)
	r.Members = append(r.Members, &Member{Key: "y", Name: "y.npy"}) // not in the index
	check("scan", true)
}
