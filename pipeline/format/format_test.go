package format

import (
	"strings"
	"testing"

	"github.com/npyflow/npyflow/npyio"
)

func mustPanic(t *testing.T, want string, f func()) {
	t.Helper()
	defer func() {
		t.Helper()
		r := recover()
		if s, _ := r.(string); !strings.Contains(s, want) {
			t.Errorf("panic %v, want one containing %q", r, want)
		}
	}()
	f()
}

// TestRegister: Register refuses incomplete formats and taken names and
// extensions; OnRegister replays the formats registered before it and
// sees those registered after, in order.
func TestRegister(t *testing.T) {
	sink := &SinkSpec{Options: SinkOptions{}}
	Register(&Format{Name: "a", Exts: []string{".a"}, Sink: sink})
	var seen []string
	OnRegister(func(f *Format) { seen = append(seen, f.Name) })
	Register(&Format{Name: "b", Exts: []string{".b"}, Aliases: []string{".bb"}, Sink: sink})
	if strings.Join(seen, " ") != "a b" {
		t.Errorf("OnRegister saw %v", seen)
	}
	mustPanic(t, `format "a" registered twice`, func() { Register(&Format{Name: "a", Exts: []string{".x"}, Sink: sink}) })
	mustPanic(t, `extension .bb of format "c" is format "b"'s`, func() { Register(&Format{Name: "c", Exts: []string{".c", ".bb"}, Sink: sink}) })
	mustPanic(t, `format "d" needs a name, an extension and a source or a sink`, func() { Register(&Format{Name: "d", Exts: []string{".d"}}) })
	mustPanic(t, `needs a name`, func() { Register(&Format{Exts: []string{".e"}, Sink: sink}) })
	if n := len(Formats()); n != 2 || len(seen) != 2 {
		t.Errorf("%d formats registered, %d seen, after the refusals", n, len(seen))
	}
}

func TestOptionsMethods(t *testing.T) {
	o := &SinkOptions{SinkPath{Path: "out/{stem}.x"}, "skip_existing"}
	if o.OutPath() != "out/{stem}.x" || o.OutMode() != "skip_existing" || o.WritesDataset() {
		t.Errorf("sink options %q %q %v", o.OutPath(), o.OutMode(), o.WritesDataset())
	}
	s := &SourceOptions{Paths: []string{"a"}}
	if s.FileSource() != s {
		t.Error("FileSource is not its receiver")
	}
}

func TestLayout(t *testing.T) {
	l := Layout{DType: npyio.Int32Type, Shape: []int{3, 2}}
	if l.RowSize() != 24 || l.String() != "'<i4', row shape (3, 2)" {
		t.Errorf("layout %s of %d bytes", l, l.RowSize())
	}
	if l := (Layout{DType: npyio.Float64Type}); l.RowSize() != 8 || l.String() != "'<f8'" {
		t.Errorf("layout %s of %d bytes", l, l.RowSize())
	}
}
