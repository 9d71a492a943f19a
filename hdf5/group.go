package hdf5

import (
	"bytes"
	"errors"
	"fmt"
	"sort"
	"strings"
)

// Object is a group, a dataset or a committed (named) datatype.
type Object interface {
	// Name is the last component of Path ("/" for the root).
	Name() string
	// Path is the absolute path of the object, soft links resolved (for
	// objects from Deref, the first path Walk reaches them by).
	Path() string
	// Addr is the address of the object header (what references hold).
	Addr() uint64
	// Attrs returns the object's attributes in name order.
	Attrs() ([]*Attribute, error)
	// Attr returns the named attribute (ErrNotFound if absent).
	Attr(name string) (*Attribute, error)
	// File returns the file the object belongs to.
	File() *File
}

type object struct {
	f    *File
	addr uint64
	path string
	name string
}

func (o *object) Name() string { return o.name }
func (o *object) Path() string { return o.path }
func (o *object) Addr() uint64 { return o.addr }
func (o *object) File() *File  { return o.f }
func (o *object) header() (*objectHeader, error) {
	return o.f.header(o.addr)
}

// Group is an HDF5 group.
type Group struct{ object }

// NamedDatatype is a committed datatype stored as an object in the file.
type NamedDatatype struct{ object }

// Type returns the committed datatype.
func (n *NamedDatatype) Type() (*Datatype, error) {
	h, err := n.header()
	if err != nil {
		return nil, err
	}
	m := h.find(msgDatatype)
	if m == nil {
		return nil, n.f.corrupt(int64(n.addr), "%s: committed datatype without a datatype message", n.path)
	}
	return n.f.parseDatatype(&dec{b: m.data}, 0, m.addr)
}

var (
	_ Object = (*Group)(nil)
	_ Object = (*Dataset)(nil)
	_ Object = (*NamedDatatype)(nil)
)

// LinkKind tells hard, soft and external links apart.
type LinkKind int

// Link kinds.
const (
	HardLink     LinkKind = 0
	SoftLink     LinkKind = 1
	ExternalLink LinkKind = 64
)

// Link is one member of a group.
type Link struct {
	Name   string
	Kind   LinkKind
	Addr   uint64 // hard links: the object header address
	Target string // soft links: the path; external links: "file:path"
	// CreationOrder is the link's creation order index in a group that
	// tracks it (netCDF-4 groups do, and h5py's track_order groups); -1
	// otherwise.
	CreationOrder int64
}

// maxLinks bounds the members of one group.
const maxLinks = 1 << 24

// Links returns the group's links sorted by name.
func (g *Group) Links() ([]Link, error) {
	links, err := g.f.sortedLinks(g.addr, g.path)
	if err != nil {
		return nil, err
	}
	return append([]Link(nil), links...), nil
}

// maxCachedLinks bounds the links the file keeps parsed.
const maxCachedLinks = 1 << 20

// sortedLinks returns the links of a group sorted by name, cached (the
// result must not be modified).
func (f *File) sortedLinks(addr uint64, path string) ([]Link, error) {
	f.mu.Lock()
	links, ok := f.linkCache[addr]
	f.mu.Unlock()
	if ok {
		return links, nil
	}
	links, err := f.links(addr, path)
	if err != nil {
		return nil, err
	}
	sort.Slice(links, func(i, j int) bool { return links[i].Name < links[j].Name })
	f.mu.Lock()
	if f.linkCacheN+len(links) > maxCachedLinks {
		f.linkCache, f.linkCacheN = map[uint64][]Link{}, 0
	}
	f.linkCache[addr] = links
	f.linkCacheN += len(links)
	f.mu.Unlock()
	return links, nil
}

// Members returns the names of the group's members sorted by name (the
// order h5py lists them in for groups without tracked creation order).
func (g *Group) Members() ([]string, error) {
	links, err := g.Links()
	if err != nil {
		return nil, err
	}
	names := make([]string, len(links))
	for i, l := range links {
		names[i] = l.Name
	}
	return names, nil
}

// Open opens the member of the group with the given name, following soft
// links within the file. A name containing '/' is a relative path.
func (g *Group) Open(name string) (Object, error) {
	return g.f.openFrom(g, name, 0)
}

// OpenPath opens the object at an absolute path such as "/g/d" ("/" is
// the root group).
func (f *File) OpenPath(path string) (Object, error) {
	return f.openFrom(f.Root(), path, 0)
}

func joinPath(dir, name string) string {
	if dir == "/" {
		return "/" + name
	}
	return dir + "/" + name
}

func (f *File) openFrom(g *Group, path string, softDepth int) (Object, error) {
	if softDepth > 16 {
		return nil, fmt.Errorf("hdf5: %s: %s: too many levels of soft links", f.name, path)
	}
	if strings.HasPrefix(path, "/") {
		g = f.Root()
	}
	parts := strings.Split(path, "/")
	var cur Object = g
	for _, p := range parts {
		if p == "" || p == "." {
			continue
		}
		grp, ok := cur.(*Group)
		if !ok {
			return nil, fmt.Errorf("hdf5: %s: %s: %s is not a group: %w", f.name, path, cur.Path(), ErrNotFound)
		}
		links, err := f.sortedLinks(grp.addr, grp.path)
		if err != nil {
			return nil, err
		}
		var found *Link
		if i := sort.Search(len(links), func(i int) bool { return links[i].Name >= p }); i < len(links) && links[i].Name == p {
			found = &links[i]
		}
		if found == nil {
			return nil, fmt.Errorf("hdf5: %s: %s: no member %q in %s: %w", f.name, path, p, grp.path, ErrNotFound)
		}
		switch found.Kind {
		case HardLink:
			cur, err = f.objectAt(found.Addr, joinPath(grp.path, p), p)
			if err != nil {
				return nil, err
			}
		case SoftLink:
			target := found.Target
			if !strings.HasPrefix(target, "/") {
				target = joinPath(grp.path, target)
			}
			cur, err = f.openFrom(f.Root(), target, softDepth+1)
			if err != nil {
				return nil, err
			}
		default:
			return nil, f.unsupported(joinPath(grp.path, p), "external link to %s", found.Target)
		}
	}
	return cur, nil
}

// objectAt opens the object whose header is at addr, deciding its kind
// from its messages.
func (f *File) objectAt(addr uint64, path, name string) (Object, error) {
	h, err := f.header(addr)
	if err != nil {
		return nil, err
	}
	o := object{f: f, addr: addr, path: path, name: name}
	if h.find(msgSymbolTable) != nil || h.find(msgLinkInfo) != nil || h.find(msgGroupInfo) != nil || h.find(msgLink) != nil {
		return &Group{o}, nil
	}
	if h.find(msgLayout) != nil || h.find(msgDataspace) != nil {
		ds := &Dataset{object: o}
		if err := ds.load(); err != nil && !errors.Is(err, ErrUnsupported) {
			return nil, err
		}
		return ds, nil
	}
	if h.find(msgDatatype) != nil {
		return &NamedDatatype{o}, nil
	}
	// A group with no members written by an old library may have neither.
	return &Group{o}, nil
}

// Deref opens the object an object reference points to. Its Path is
// found by searching the file (the first path in name order); if the
// object is not reachable by any path, Path is "" and Name the address.
func (f *File) Deref(ref Reference) (Object, error) {
	addr := uint64(ref)
	if addr == 0 || addr == undefAddr {
		return nil, fmt.Errorf("hdf5: %s: null object reference: %w", f.name, ErrNotFound)
	}
	if !f.checkRange(addr, 1) {
		return nil, f.corrupt(int64(addr), "object reference outside the file")
	}
	path := f.pathOf(addr)
	name := path[strings.LastIndex(path, "/")+1:]
	if path == "" {
		name = fmt.Sprintf("#%x", addr)
	}
	if path == "/" {
		name = "/"
	}
	return f.objectAt(addr, path, name)
}

// pathOf finds the path Walk reaches the object at addr by ("" if none).
// The map of paths is built on first use.
func (f *File) pathOf(addr uint64) string {
	if addr == f.rootAddr {
		return "/"
	}
	f.mu.Lock()
	paths := f.paths
	f.mu.Unlock()
	if paths == nil {
		paths = map[uint64]string{}
		_ = f.Walk(func(p string, o Object) error {
			paths[o.Addr()] = p
			return nil
		})
		f.mu.Lock()
		f.paths = paths
		f.mu.Unlock()
	}
	return paths[addr]
}

// links reads every link of the group whose header is at addr.
func (f *File) links(addr uint64, path string) ([]Link, error) {
	h, err := f.header(addr)
	if err != nil {
		return nil, err
	}
	var out []Link
	if m := h.find(msgSymbolTable); m != nil {
		d := &dec{b: m.data}
		btree, heap := d.u64(), d.u64()
		if !d.ok() {
			return nil, f.corrupt(int64(m.addr), "truncated symbol table message")
		}
		return f.symbolTableLinks(btree, heap)
	}
	for _, m := range h.msgs {
		if m.typ == msgLink {
			l, err := f.parseLink(m.data, m.addr)
			if err != nil {
				return nil, err
			}
			out = append(out, l)
		}
	}
	if m := h.find(msgLinkInfo); m != nil {
		d := &dec{b: m.data}
		if v := d.u8(); v != 0 {
			return nil, f.corrupt(int64(m.addr), "link info message version %d", v)
		}
		flags := d.u8()
		if flags&1 != 0 {
			d.skip(8)
		}
		heapAddr, nameIdx := d.u64(), d.u64()
		if !d.ok() {
			return nil, f.corrupt(int64(m.addr), "truncated link info message")
		}
		if heapAddr != undefAddr && nameIdx != undefAddr {
			heap, err := f.openHeap(heapAddr)
			if err != nil {
				return nil, err
			}
			t, err := f.openBT2(nameIdx, 5)
			if err != nil {
				return nil, err
			}
			err = t.each(func(rec []byte) error {
				if len(out) >= maxLinks {
					return f.corrupt(int64(nameIdx), "group with over %d links", maxLinks)
				}
				if len(rec) < 5 {
					return f.corrupt(int64(nameIdx), "link name record of %d bytes", len(rec))
				}
				obj, err := heap.get(rec[4:])
				if err != nil {
					return err
				}
				l, err := f.parseLink(obj, heapAddr)
				if err != nil {
					return err
				}
				out = append(out, l)
				return nil
			})
			if err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

func (f *File) parseLink(b []byte, addr uint64) (Link, error) {
	d := &dec{b: b}
	var l Link
	if v := d.u8(); v != 1 {
		return l, f.corrupt(int64(addr), "link message version %d", v)
	}
	flags := d.u8()
	if flags&0x8 != 0 {
		l.Kind = LinkKind(d.u8())
	}
	l.CreationOrder = -1
	if flags&0x4 != 0 {
		l.CreationOrder = int64(d.u64() & (1<<63 - 1))
	}
	if flags&0x10 != 0 {
		d.skip(1)
	}
	n := d.uvar(1 << (flags & 3))
	if n == 0 || n > uint64(d.rest()) {
		return l, f.corrupt(int64(addr), "link name of %d bytes", n)
	}
	l.Name = string(d.bytes(int(n)))
	switch l.Kind {
	case HardLink:
		l.Addr = d.u64()
	case SoftLink:
		k := int(d.u16())
		l.Target = string(d.bytes(k))
	case ExternalLink:
		k := int(d.u16())
		v := d.bytes(k)
		if len(v) > 1 {
			parts := bytes.SplitN(v[1:], []byte{0}, 3)
			if len(parts) >= 2 {
				l.Target = string(parts[0]) + ":" + string(parts[1])
			}
		}
	default:
		return l, f.unsupported("", "user-defined link type %d (%q)", l.Kind, l.Name)
	}
	if !d.ok() {
		return l, f.corrupt(int64(addr), "truncated link message")
	}
	return l, nil
}

// localHeap returns the data segment of the local heap at addr.
func (f *File) localHeap(addr uint64) ([]byte, error) {
	b, err := f.readAt(addr, 32, "local heap")
	if err != nil {
		return nil, err
	}
	if !bytes.Equal(b[:4], []byte("HEAP")) {
		return nil, f.corrupt(int64(addr), "local heap without HEAP signature")
	}
	d := &dec{b: b, pos: 8}
	size := d.u64()
	d.skip(8)
	data := d.u64()
	if size > maxMetaBlock {
		return nil, f.corrupt(int64(addr), "local heap of %d bytes", size)
	}
	return f.readAt(data, size, "local heap data")
}

func heapString(heap []byte, off uint64) (string, bool) {
	if off >= uint64(len(heap)) {
		return "", false
	}
	i := bytes.IndexByte(heap[off:], 0)
	if i < 0 {
		return "", false
	}
	return string(heap[off : off+uint64(i)]), true
}

func (f *File) symbolTableLinks(btree, heapAddr uint64) ([]Link, error) {
	heap, err := f.localHeap(heapAddr)
	if err != nil {
		return nil, err
	}
	var out []Link
	seen := map[uint64]bool{}
	var walk func(addr uint64, depth int) error
	walk = func(addr uint64, depth int) error {
		if depth > maxDepth {
			return f.corrupt(int64(addr), "group B-tree deeper than %d", maxDepth)
		}
		if seen[addr] {
			return f.corrupt(int64(addr), "group B-tree node visited twice (cycle)")
		}
		seen[addr] = true
		hdr, err := f.readAt(addr, 24, "group B-tree node")
		if err != nil {
			return err
		}
		if !bytes.Equal(hdr[:4], []byte("TREE")) || hdr[4] != 0 {
			return f.corrupt(int64(addr), "group B-tree node without TREE signature or of type %d", hdr[4])
		}
		level := int(hdr[5])
		n := int(hdr[6]) | int(hdr[7])<<8
		b, err := f.readAt(addr+24, uint64(n*16+8), "group B-tree node")
		if err != nil {
			return err
		}
		d := &dec{b: b}
		for i := 0; i < n; i++ {
			d.skip(8)
			child := d.u64()
			if level > 0 {
				if level > depth+maxDepth {
					return f.corrupt(int64(addr), "group B-tree level %d", level)
				}
				if err := walk(child, depth+1); err != nil {
					return err
				}
				continue
			}
			if err := f.readSNOD(child, heap, seen, &out); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(btree, 0); err != nil {
		return nil, err
	}
	return out, nil
}

func (f *File) readSNOD(addr uint64, heap []byte, seen map[uint64]bool, out *[]Link) error {
	if seen[addr] {
		return f.corrupt(int64(addr), "symbol table node visited twice (cycle)")
	}
	seen[addr] = true
	hdr, err := f.readAt(addr, 8, "symbol table node")
	if err != nil {
		return err
	}
	if !bytes.Equal(hdr[:4], []byte("SNOD")) {
		return f.corrupt(int64(addr), "symbol table node without SNOD signature")
	}
	n := int(hdr[6]) | int(hdr[7])<<8
	b, err := f.readAt(addr+8, uint64(n)*40, "symbol table node")
	if err != nil {
		return err
	}
	if len(*out)+n > maxLinks {
		return f.corrupt(int64(addr), "group with over %d links", maxLinks)
	}
	d := &dec{b: b}
	for i := 0; i < n; i++ {
		nameOff := d.u64()
		objAddr := d.u64()
		cache := d.u32()
		d.skip(4)
		scratch := d.bytes(16)
		name, ok := heapString(heap, nameOff)
		if !ok || name == "" {
			return f.corrupt(int64(addr), "symbol table entry name at heap offset %d", nameOff)
		}
		l := Link{Name: name, Addr: objAddr, CreationOrder: -1}
		if cache == 2 {
			sd := &dec{b: scratch}
			t, ok := heapString(heap, uint64(sd.u32()))
			if !ok {
				return f.corrupt(int64(addr), "soft link %q value outside the local heap", name)
			}
			l.Kind, l.Addr, l.Target = SoftLink, 0, t
		}
		*out = append(*out, l)
	}
	return nil
}

// Walk calls fn for every group, dataset and committed datatype reachable
// from the root, depth first in name order, the root ("/") first. Soft and
// external links are not followed; an object reached twice through hard
// links is visited once. A non-nil error from fn stops the walk and is
// returned.
func (f *File) Walk(fn func(path string, obj Object) error) error {
	seen := map[uint64]bool{f.rootAddr: true}
	root := f.Root()
	if err := fn("/", root); err != nil {
		return err
	}
	var walk func(g *Group, depth int) error
	walk = func(g *Group, depth int) error {
		if depth > maxDepth*4 {
			return f.corrupt(int64(g.addr), "%s: groups nested over %d levels", g.path, maxDepth*4)
		}
		links, err := g.Links()
		if err != nil {
			return err
		}
		for _, l := range links {
			if l.Kind != HardLink || seen[l.Addr] {
				continue
			}
			seen[l.Addr] = true
			p := joinPath(g.path, l.Name)
			o, err := f.objectAt(l.Addr, p, l.Name)
			if err != nil {
				return err
			}
			if err := fn(p, o); err != nil {
				return err
			}
			if sub, ok := o.(*Group); ok {
				if err := walk(sub, depth+1); err != nil {
					return err
				}
			}
		}
		return nil
	}
	return walk(root, 0)
}
