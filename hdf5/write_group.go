package hdf5

import (
	"encoding/binary"
	"fmt"
	"sort"
	"strings"
)

// GroupWriter is a group being written: an old-style group whose symbol
// table (v1 B-tree, group nodes and local heap) is written at Close.
type GroupWriter struct {
	w       *Writer
	h       *wHeader
	path    string
	members []wEntry
	names   map[string]bool
	btree   uint64 // set by writeTable
	heap    uint64
	order   bool // a new-style group tracking creation order (TrackOrder)
}

type wEntry struct {
	name  string
	h     *wHeader
	group *GroupWriter // nil for a dataset
}

func (w *Writer) newGroup(parent *GroupWriter, name string) (*GroupWriter, error) {
	path := "/"
	if parent != nil {
		if err := parent.addName(name); err != nil {
			return nil, err
		}
		path = wJoin(parent.path, name)
	}
	g := &GroupWriter{w: w, path: path, names: map[string]bool{}, btree: wUndef, heap: wUndef}
	g.h = w.newHeader(path, 8+16)
	g.h.msgs = func() ([]wMsg, error) {
		if g.order {
			return g.linkMessages(), nil
		}
		data := make([]byte, 16)
		binary.LittleEndian.PutUint64(data, g.btree)
		binary.LittleEndian.PutUint64(data[8:], g.heap)
		return []wMsg{{typ: wMsgSymbolTable, data: data}}, nil
	}
	w.groups = append(w.groups, g)
	if parent != nil {
		parent.members = append(parent.members, wEntry{name: name, h: g.h, group: g})
	}
	return g, nil
}

func wJoin(dir, name string) string {
	if dir == "/" {
		return "/" + name
	}
	return dir + "/" + name
}

func (g *GroupWriter) addName(name string) error {
	if err := g.w.check(); err != nil {
		return err
	}
	if name == "" || name == "." || strings.ContainsAny(name, "/\x00") {
		return fmt.Errorf("hdf5: %s: bad member name %q (names are non-empty, without '/' or NUL, not '.')", g.path, name)
	}
	if g.names[name] {
		return fmt.Errorf("hdf5: %s: a member %q already exists", g.path, name)
	}
	g.names[name] = true
	return nil
}

// Path is the group's absolute path.
func (g *GroupWriter) Path() string { return g.path }

// CreateGroup adds a subgroup.
func (g *GroupWriter) CreateGroup(name string) (*GroupWriter, error) {
	return g.w.newGroup(g, name)
}

// Ref is an object reference to the group (its object header address).
func (g *GroupWriter) Ref() ObjRef { return ObjRef(g.h.addr) }

// SetAttr adds an attribute to the group.
func (g *GroupWriter) SetAttr(name string, v AttrValue) error {
	return g.w.setAttr(g.h, name, v)
}

// TrackOrder makes the group a new-style group that tracks the creation
// order of its members (compact link messages with their creation
// order, as netCDF-C's groups are): readers list its members in the
// order they were created, where an old-style group lists them by name.
func (g *GroupWriter) TrackOrder() { g.order = true }

// linkMessages are a creation-ordered group's messages: link info
// (creation order tracked, no dense storage), group info and one link
// message per member in creation order.
func (g *GroupWriter) linkMessages() []wMsg {
	le := binary.LittleEndian
	info := []byte{0, 1}
	info = le.AppendUint64(info, uint64(len(g.members))) // the largest creation index + 1
	info = le.AppendUint64(info, wUndef)                 // fractal heap
	info = le.AppendUint64(info, wUndef)                 // name index
	ms := []wMsg{{typ: wMsgLinkInfo, data: info}, {typ: wMsgGroupInfo, data: []byte{0, 0}}}
	for i, m := range g.members {
		flags := byte(1 << 2) // creation order present; a hard link, ASCII
		if len(m.name) > 0xff {
			flags |= 1 // a 2-byte name length
		}
		b := []byte{1, flags}
		b = le.AppendUint64(b, uint64(i))
		if len(m.name) > 0xff {
			b = le.AppendUint16(b, uint16(len(m.name)))
		} else {
			b = append(b, byte(len(m.name)))
		}
		b = append(b, m.name...)
		b = le.AppendUint64(b, m.h.addr)
		ms = append(ms, wMsg{typ: wMsgLink, data: b})
	}
	return ms
}

// entry encodes the group's symbol table entry (40 bytes) with the given
// name offset, caching the table addresses as the library does.
func (g *GroupWriter) entry(b []byte, nameOff uint64) {
	le := binary.LittleEndian
	le.PutUint64(b, nameOff)
	le.PutUint64(b[8:], g.h.addr)
	if g.order {
		return // a new-style group: nothing cached
	}
	le.PutUint32(b[16:], 1)
	le.PutUint64(b[24:], g.btree)
	le.PutUint64(b[32:], g.heap)
}

// writeTable writes the local heap, the group nodes and the B-tree.
func (g *GroupWriter) writeTable() error {
	if g.order {
		return nil // its links are in its header
	}
	w := g.w
	ms := append([]wEntry(nil), g.members...)
	sort.Slice(ms, func(i, j int) bool { return ms[i].name < ms[j].name })

	// Local heap: "" at offset 0, then the names, each NUL-terminated and
	// padded to 8 bytes.
	offs := make([]uint64, len(ms))
	data := make([]byte, 8)
	for i, m := range ms {
		offs[i] = uint64(len(data))
		data = append(data, m.name...)
		data = append(data, make([]byte, wPad8(len(m.name)+1)-len(m.name))...)
	}
	g.heap = w.alloc(32 + uint64(len(data)))
	hb := make([]byte, 32, 32+len(data))
	copy(hb, "HEAP")
	binary.LittleEndian.PutUint64(hb[8:], uint64(len(data)))
	binary.LittleEndian.PutUint64(hb[16:], 1) // no free block (H5HL_FREE_NULL)
	binary.LittleEndian.PutUint64(hb[24:], g.heap+32)
	hb = append(hb, data...)
	if err := w.writeAt(g.heap, hb); err != nil {
		return err
	}

	// Group nodes of up to 2*leafK entries each.
	const per = 2 * wGroupLeafK
	const snodSize = 8 + per*40
	var leaves []wBTChild
	for i := 0; i < len(ms); i += per {
		j := min(i+per, len(ms))
		addr := w.alloc(snodSize)
		b := make([]byte, snodSize)
		copy(b, "SNOD")
		b[4] = 1
		binary.LittleEndian.PutUint16(b[6:], uint16(j-i))
		for k := i; k < j; k++ {
			e := b[8+(k-i)*40:]
			if ms[k].group != nil {
				ms[k].group.entry(e, offs[k])
			} else {
				binary.LittleEndian.PutUint64(e, offs[k])
				binary.LittleEndian.PutUint64(e[8:], ms[k].h.addr)
			}
		}
		if err := w.writeAt(addr, b); err != nil {
			return err
		}
		left := uint64(0)
		if i > 0 {
			left = offs[i-1]
		}
		leaves = append(leaves, wBTChild{addr: addr,
			left:  binary.LittleEndian.AppendUint64(nil, left),
			right: binary.LittleEndian.AppendUint64(nil, offs[j-1])})
	}
	root, err := w.writeBTree(0, wGroupInternalK, 8, leaves)
	if err != nil {
		return err
	}
	g.btree = root
	return nil
}

// wBTChild is a child of a v1 B-tree node: its address and the keys on
// either side of it.
type wBTChild struct {
	addr        uint64
	left, right []byte
}

// writeBTree writes a v1 B-tree of the given type over the leaf-level
// children and returns its root address. Nodes are filled up to 2K
// children; an empty tree is a single empty node.
func (w *Writer) writeBTree(typ byte, k int, keySize int, children []wBTChild) (uint64, error) {
	nodeSize := 24 + (2*k+1)*keySize + 2*k*8
	level := 0
	for {
		n := (len(children) + 2*k - 1) / (2 * k)
		if n == 0 {
			n = 1
		}
		addrs := make([]uint64, n)
		for i := range addrs {
			addrs[i] = w.alloc(uint64(nodeSize))
		}
		parents := make([]wBTChild, n)
		for i := 0; i < n; i++ {
			cs := children[min(i*2*k, len(children)):min((i+1)*2*k, len(children))]
			b := make([]byte, 24, nodeSize)
			copy(b, "TREE")
			b[4] = typ
			b[5] = byte(level)
			binary.LittleEndian.PutUint16(b[6:], uint16(len(cs)))
			left, right := wUndef, wUndef
			if i > 0 {
				left = addrs[i-1]
			}
			if i+1 < n {
				right = addrs[i+1]
			}
			binary.LittleEndian.PutUint64(b[8:], left)
			binary.LittleEndian.PutUint64(b[16:], right)
			for j, c := range cs {
				if j == 0 {
					b = append(b, c.left...)
				}
				b = binary.LittleEndian.AppendUint64(b, c.addr)
				b = append(b, c.right...)
			}
			b = append(b, make([]byte, nodeSize-len(b))...)
			if err := w.writeAt(addrs[i], b); err != nil {
				return 0, err
			}
			if len(cs) > 0 {
				parents[i] = wBTChild{addr: addrs[i], left: cs[0].left, right: cs[len(cs)-1].right}
			}
		}
		if n == 1 {
			return addrs[0], nil
		}
		children = parents
		level++
	}
}
