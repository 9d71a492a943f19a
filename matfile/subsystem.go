package matfile

import (
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"

	"github.com/npyflow/npyflow/hdf5"
)

// The subsystem: where MATLAB keeps the contents of MCOS objects (string,
// datetime, table, classdef objects ...). A variable holding objects
// holds only references (object ids and a class id); the subsystem holds
// the class and object tables and each object's saved property values.
// In a Level 5 file it is the unnamed uint8 array at the header's
// subsystem offset, itself a small MAT-file whose one struct has a field
// MCOS: an opaque FileWrapper__ object whose data is a cell array. In a
// v7.3 file it is the cell (reference dataset) #subsystem#/MCOS. Either
// way the cell holds:
//
//	cell 1       the linking metadata (uint8, layout below)
//	cell 2       empty
//	cells 3..    the property values ("field contents"), 0-based ids
//	cell end-2   unknown (one struct per class)
//	cell end-1   class aliases (int32 per class)
//	cell end     the default property values: one struct per class
//
// The metadata is little-endian uint32s in Level 5's byte order:
//
//	offset  size  what
//	0       4     version (4 in files of MATLAB R2021 on; 2 and 3 earlier)
//	4       4     the number of names
//	8       32    eight region offsets (from the start of the metadata)
//	40      ...   the names, NUL-terminated (class, property, member names)
//	r1            classes, 16 bytes each: namespace name, class name, 0, 0
//	r2            saveobj property blocks (objects saved through saveobj)
//	r3            objects, 24 bytes each: class id, 0, 0, saveobj id,
//	              property-block id, dependency id
//	r4            property blocks: a count n, then n triples (name, kind,
//	              value), padded to 8 bytes; kind 1: value is a cell
//	              (0-based from cell 3); kind 2: the value itself; kind 0:
//	              a name (an enumeration member's)
//	r5            dynamic property blocks: a count n, then n object ids
//	r6..r8        unknown, and the end
//
// Name indices are 1-based (0: none); the first entry of every table is
// a placeholder (ids are 1-based too).
type subsystem struct {
	names    []string
	classes  []ssClass  // by class id
	objects  []ssObject // by object id
	saveobj  [][]ssProp // region 2, by saveobj id
	props    [][]ssProp // region 4, by property-block id
	dynamic  [][]uint32 // region 5, by dependency id
	ncells   int        // property value cells
	cell     func(i int) (*mxNode, error)
	defaults func(classID uint32) (*mxNode, error)

	resolved map[uint32]*mcosObject
	busy     map[uint32]bool
}

type ssClass struct {
	name string // with its namespace ("TestClasses.BasicClass")
}

type ssObject struct {
	classID, saveobj, block, dep uint32
}

type ssProp struct {
	name      string
	kind, val uint32
}

// mcosObject is one resolved object: its class and saved properties
// (the class defaults first, then the saved values in file order, then
// dynamic properties).
type mcosObject struct {
	id     uint32
	class  string
	names  []string
	values []*mxNode
	dyn    []uint32 // object ids of dynamic properties (meta.DynamicProperty)
}

func (o *mcosObject) prop(name string) *mxNode {
	for i, n := range o.names {
		if n == name {
			return o.values[i]
		}
	}
	return nil
}

// SubsystemError reports a damaged subsystem or an object reference that
// points outside it; it costs the variables that refer to objects.
type SubsystemError struct {
	File string
	Msg  string
}

func (e *SubsystemError) Error() string {
	if e.File != "" {
		return "matfile: " + e.File + ": the object subsystem: " + e.Msg
	}
	return "matfile: the object subsystem: " + e.Msg
}

func ssErr(format string, args ...any) error {
	return &SubsystemError{Msg: fmt.Sprintf(format, args...)}
}

// parseSubsystemMeta parses the linking metadata (cell 1).
func parseSubsystemMeta(b []byte, bo binary.ByteOrder) (*subsystem, error) {
	if len(b) < 40 {
		return nil, ssErr("linking metadata of %d bytes, shorter than its 40-byte header", len(b))
	}
	u32 := func(off int) uint32 { return bo.Uint32(b[off:]) }
	ver := u32(0)
	if ver < 2 || ver > 4 {
		return nil, ssErr("linking metadata version %d (npyflow knows 2 to 4)", ver)
	}
	nnames := u32(4)
	var off [8]int
	for i := range off {
		o := u32(8 + 4*i)
		if int64(o) > int64(len(b)) {
			return nil, ssErr("region %d starts at byte %d, past the %d bytes of the metadata", i+1, o, len(b))
		}
		off[i] = int(o)
		if off[i] < 40 || (i > 0 && off[i] < off[i-1]) {
			return nil, ssErr("region offsets %v are not increasing from byte 40", off)
		}
	}
	s := &subsystem{resolved: map[uint32]*mcosObject{}, busy: map[uint32]bool{}}
	if int64(nnames) > int64(off[0]-40) {
		return nil, ssErr("%d names cannot fit in %d bytes", nnames, off[0]-40)
	}
	s.names = make([]string, 0, nnames)
	pos := 40
	for i := uint32(0); i < nnames; i++ {
		end := pos
		for end < off[0] && b[end] != 0 {
			end++
		}
		if end >= off[0] {
			return nil, ssErr("name %d of %d is not terminated before byte %d", i+1, nnames, off[0])
		}
		s.names = append(s.names, string(b[pos:end]))
		pos = end + 1
	}
	name := func(idx uint32) (string, error) {
		if idx == 0 || int64(idx) > int64(len(s.names)) {
			return "", ssErr("name index %d outside the %d names", idx, len(s.names))
		}
		return s.names[idx-1], nil
	}
	// Region 1: classes.
	r := b[off[0]:off[1]]
	if len(r)%16 != 0 {
		return nil, ssErr("the class region has %d bytes, not a multiple of 16", len(r))
	}
	for i := 0; i+16 <= len(r); i += 16 {
		ns, nm := bo.Uint32(r[i:]), bo.Uint32(r[i+4:])
		if i == 0 {
			s.classes = append(s.classes, ssClass{})
			continue
		}
		cn, err := name(nm)
		if err != nil {
			return nil, err
		}
		if ns != 0 {
			pkg, err := name(ns)
			if err != nil {
				return nil, err
			}
			cn = pkg + "." + cn
		}
		s.classes = append(s.classes, ssClass{name: cn})
	}
	// Regions 2 and 4: property blocks.
	var err error
	if s.saveobj, err = propBlocks(b[off[1]:off[2]], bo, name, "saveobj property"); err != nil {
		return nil, err
	}
	if s.props, err = propBlocks(b[off[3]:off[4]], bo, name, "property"); err != nil {
		return nil, err
	}
	// Region 3: objects.
	r = b[off[2]:off[3]]
	if len(r)%24 != 0 {
		return nil, ssErr("the object region has %d bytes, not a multiple of 24", len(r))
	}
	for i := 0; i+24 <= len(r); i += 24 {
		o := ssObject{classID: bo.Uint32(r[i:]), saveobj: bo.Uint32(r[i+12:]), block: bo.Uint32(r[i+16:]), dep: bo.Uint32(r[i+20:])}
		if i > 0 {
			if o.classID == 0 || int64(o.classID) >= int64(len(s.classes)) {
				return nil, ssErr("object %d has class id %d, outside the %d classes", i/24, o.classID, len(s.classes)-1)
			}
			if o.saveobj != 0 && int64(o.saveobj) >= int64(len(s.saveobj)) || o.block != 0 && int64(o.block) >= int64(len(s.props)) {
				return nil, ssErr("object %d refers to property block %d/%d, outside the %d/%d blocks", i/24, o.saveobj, o.block, len(s.saveobj), len(s.props))
			}
		}
		s.objects = append(s.objects, o)
	}
	// Region 5: dynamic properties.
	r = b[off[4]:off[5]]
	for i := 0; i+4 <= len(r); {
		n := bo.Uint32(r[i:])
		if int64(n) > int64(len(r)-i-4)/4 {
			return nil, ssErr("a dynamic property block of %d ids in %d bytes", n, len(r)-i-4)
		}
		ids := make([]uint32, n)
		for k := range ids {
			ids[k] = bo.Uint32(r[i+4+4*k:])
		}
		s.dynamic = append(s.dynamic, ids)
		i = pad8(i + 4 + 4*int(n))
	}
	return s, nil
}

func pad8(n int) int { return (n + 7) &^ 7 }

// propBlocks parses a region of property blocks.
func propBlocks(r []byte, bo binary.ByteOrder, name func(uint32) (string, error), what string) ([][]ssProp, error) {
	var out [][]ssProp
	for i := 0; i+4 <= len(r); {
		n := bo.Uint32(r[i:])
		if int64(n) > int64(len(r)-i-4)/12 {
			return nil, ssErr("a %s block of %d entries in %d bytes", what, n, len(r)-i-4)
		}
		props := make([]ssProp, n)
		for k := range props {
			e := r[i+4+12*k:]
			p := ssProp{kind: bo.Uint32(e[4:]), val: bo.Uint32(e[8:])}
			var err error
			if p.name, err = name(bo.Uint32(e)); err != nil {
				return nil, err
			}
			props[k] = p
		}
		out = append(out, props)
		i = pad8(i + 4 + 12*int(n))
	}
	return out, nil
}

// object resolves object id: its class and property values.
func (s *subsystem) object(id uint32) (*mcosObject, error) {
	if o, ok := s.resolved[id]; ok {
		return o, nil
	}
	if id == 0 || int64(id) >= int64(len(s.objects)) {
		return nil, ssErr("object id %d outside the %d objects", id, len(s.objects)-1)
	}
	if s.busy[id] {
		return nil, ssErr("object %d contains itself", id)
	}
	s.busy[id] = true
	defer delete(s.busy, id)
	so := s.objects[id]
	o := &mcosObject{id: id, class: s.classes[so.classID].name}
	set := func(name string, v *mxNode) {
		for i, n := range o.names {
			if n == name {
				o.values[i] = v
				return
			}
		}
		o.names = append(o.names, name)
		o.values = append(o.values, v)
	}
	if s.defaults != nil {
		d, err := s.defaults(so.classID)
		if err != nil {
			return nil, err
		}
		if d != nil && d.class == NameStruct && len(d.elems) == 1 {
			for i, f := range d.fields {
				set(f, d.elems[0][i])
			}
		}
	}
	var block []ssProp
	switch {
	case so.saveobj != 0:
		block = s.saveobj[so.saveobj]
	case so.block != 0:
		block = s.props[so.block]
	}
	for _, p := range block {
		switch p.kind {
		case 0: // an enumeration member's name
			nm := ""
			if p.val != 0 && int64(p.val) <= int64(len(s.names)) {
				nm = s.names[p.val-1]
			}
			set(p.name, charNode(nm))
		case 1:
			v, err := s.content(p.val)
			if err != nil {
				return nil, fmt.Errorf("property %s: %w", p.name, err)
			}
			set(p.name, v)
		case 2:
			set(p.name, doubleNode(float64(p.val)))
		default:
			return nil, ssErr("property %s of object %d is of kind %d (npyflow knows 0, 1, 2)", p.name, id, p.kind)
		}
	}
	if so.dep != 0 && int64(so.dep) < int64(len(s.dynamic)) {
		o.dyn = s.dynamic[so.dep]
	}
	s.resolved[id] = o
	return o, nil
}

// content returns property value cell i (0-based, from cell 3).
func (s *subsystem) content(i uint32) (*mxNode, error) {
	if int64(i) >= int64(s.ncells) {
		return nil, ssErr("property value %d outside the %d values", i, s.ncells)
	}
	return s.cell(int(i))
}

// className returns name index idx (1-based) of the names.
func (s *subsystem) name(idx uint32) (string, bool) {
	if idx == 0 || int64(idx) > int64(len(s.names)) {
		return "", false
	}
	return s.names[idx-1], true
}

func charNode(s string) *mxNode {
	var u []uint32
	for _, r := range s {
		if r > 0xFFFF {
			r1, r2 := rune(0xD800+((r-0x10000)>>10)), rune(0xDC00+((r-0x10000)&0x3FF))
			u = append(u, uint32(r1), uint32(r2))
			continue
		}
		u = append(u, uint32(r))
	}
	return &mxNode{class: NameChar, dims: []int{1, len(u)}, chars: u}
}

func doubleNode(v float64) *mxNode {
	b := allocFor(1, 8)
	view[float64](b)[0] = v
	return &mxNode{class: NameDouble, dims: []int{1, 1}, dt: classDType(ClassDouble, false), data: b}
}

// newSubsystem builds the subsystem from the FileWrapper__ cell: cells
// is the number of cells, cell(i) reads cell i (0-based).
func newSubsystem(ncells int, cell func(i int) (*mxNode, error), bo binary.ByteOrder) (*subsystem, error) {
	if ncells < 5 {
		return nil, ssErr("the FileWrapper__ cell has %d elements (at least 5: metadata, empty, 3 class cells)", ncells)
	}
	meta, err := cell(0)
	if err != nil {
		return nil, err
	}
	if meta.dt == nil || meta.dt.Size != 1 || meta.sparse {
		return nil, ssErr("the linking metadata is %s, not uint8", meta.class)
	}
	s, err := parseSubsystemMeta(meta.data, bo)
	if err != nil {
		return nil, err
	}
	s.ncells = ncells - 5
	marked := make([]bool, ncells)
	get := func(i int) (*mxNode, error) {
		n, err := cell(i)
		if err != nil {
			return nil, err
		}
		if !marked[i] {
			marked[i] = true
			markRefs(n, 0)
		}
		return n, nil
	}
	s.cell = func(i int) (*mxNode, error) { return get(i + 2) }
	var defs *mxNode
	s.defaults = func(classID uint32) (*mxNode, error) {
		if defs == nil {
			d, err := get(ncells - 1)
			if err != nil {
				return nil, err
			}
			defs = d
		}
		if defs.class != NameCell || int64(classID) >= int64(len(defs.cells)) {
			return nil, nil // no defaults recorded
		}
		return defs.cells[classID], nil
	}
	return s, nil
}

// markRefs turns the object references inside the subsystem's values,
// which are plain uint32 arrays there (and enumerations plain structs),
// into reference nodes.
func markRefs(n *mxNode, depth int) {
	if n == nil || depth > 256 {
		return
	}
	if r, ok := asObjRef(n); ok {
		*n = mxNode{class: "object", dims: r.dims, ref: r, system: "MCOS"}
		return
	}
	if e, ok := asEnumRef(n); ok {
		*n = mxNode{class: "object", dims: e.dims, enum: e, system: "MCOS"}
		return
	}
	for _, c := range n.cells {
		markRefs(c, depth+1)
	}
	for _, e := range n.elems {
		for _, c := range e {
			markRefs(c, depth+1)
		}
	}
}

// subsystem returns the file's parsed subsystem (read once, on first
// use), or the error that makes its objects unreadable.
func (f *File) subsystem() (*subsystem, error) {
	if f.ssDone {
		return f.ss, f.ssErr
	}
	f.ssDone = true
	if f.v73 != nil {
		f.ss, f.ssErr = f.v73.loadSubsystem()
	} else {
		f.ss, f.ssErr = f.l5.loadSubsystem()
	}
	if se, ok := f.ssErr.(*SubsystemError); ok && se.File == "" {
		se.File = f.name
	}
	return f.ss, f.ssErr
}

// loadSubsystem reads the subsystem element of a Level 5 file.
func (l *level5) loadSubsystem() (*subsystem, error) {
	var el *l5elem
	for i := range l.elems {
		if l.elems[i].subsystem {
			el = &l.elems[i]
		}
	}
	if el == nil {
		return nil, ssErr("the file has objects but no subsystem (the header's subsystem offset points to no element)")
	}
	b, err := l.load(*el, false)
	if err != nil {
		return nil, err
	}
	p := l.parser(*el, "")
	h, err := p.header(b)
	if err != nil {
		return nil, err
	}
	if h.class != ClassUint8 || h.complex {
		return nil, ssErr("the subsystem element is %s, not uint8", h.className())
	}
	d, _, err := p.next(SubsystemName, b, h.pos, "subsystem data")
	if err != nil {
		return nil, err
	}
	if d.typ != MiUINT8 && d.typ != MiINT8 {
		return nil, ssErr("the subsystem data is %s, not miUINT8", d.typ)
	}
	mini := d.data
	// A MAT-file of its own: version and endian in 4 bytes, padding to 8,
	// then its elements, the first a struct with the field MCOS.
	if len(mini) < 16 {
		return nil, ssErr("%d bytes of subsystem data", len(mini))
	}
	var bo binary.ByteOrder
	switch string(mini[2:4]) {
	case "IM":
		bo = binary.LittleEndian
	case "MI":
		bo = binary.BigEndian
	default:
		return nil, ssErr("the subsystem data has the endian indicator %q", mini[2:4])
	}
	sp := &l5parser{f: l.f, bo: bo, off: el.off, elemsLeft: l.f.opts.MaxElements}
	typ := DataType(bo.Uint32(mini[8:]))
	n := int64(bo.Uint32(mini[12:]))
	if n > int64(len(mini)-16) {
		return nil, ssErr("its first element holds %d bytes, %d are left", n, len(mini)-16)
	}
	body := mini[16 : 16+n]
	if typ == MiCOMPRESSED {
		return nil, ssErr("a compressed element inside the subsystem")
	}
	if typ != MiMATRIX {
		return nil, ssErr("its first element is %s, not miMATRIX", typ)
	}
	root, err := sp.node(body, SubsystemName, 0)
	if err != nil {
		return nil, err
	}
	mcos := root.field("MCOS", 0)
	if root.class != NameStruct || mcos == nil {
		return nil, ssErr("no MCOS field (only MCOS objects are read)")
	}
	if mcos.class != fileWrapper {
		return nil, ssErr("MCOS holds a %s, not FileWrapper__", mcos.class)
	}
	cells := mcos.cells
	return newSubsystem(len(cells), func(i int) (*mxNode, error) { return cells[i], nil }, bo)
}

// loadSubsystem reads #subsystem#/MCOS of a v7.3 file; its cells are read
// when first used.
func (v *v73File) loadSubsystem() (*subsystem, error) {
	obj, err := v.h.OpenPath("/" + SubsystemName + "/MCOS")
	if err != nil {
		return nil, ssErr("no %s/MCOS: %v", SubsystemName, strings.TrimPrefix(err.Error(), "hdf5: "))
	}
	ds, ok := obj.(*hdf5.Dataset)
	if !ok || ds.Type() == nil || ds.Type().Class != hdf5.ClassReference {
		return nil, ssErr("%s/MCOS is not a cell of references", SubsystemName)
	}
	if ds.Len() > uint64(v.f.opts.MaxElements) {
		return nil, &LimitError{Path: SubsystemName, What: "number of subsystem cells", Size: int64(min(ds.Len(), 1<<62)), Limit: int64(v.f.opts.MaxElements), Hint: "MaxElements"}
	}
	refs, err := ds.ReadReferences()
	if err != nil {
		return nil, ssErr("%s/MCOS: %v", SubsystemName, strings.TrimPrefix(err.Error(), "hdf5: "))
	}
	w := &v73walk{v: v, elemsLeft: v.f.opts.MaxElements, onPath: map[uint64]bool{}}
	cache := make([]*mxNode, len(refs))
	cell := func(i int) (*mxNode, error) {
		if cache[i] != nil {
			return cache[i], nil
		}
		p := SubsystemName + "{" + strconv.Itoa(i+1) + "}"
		o, err := w.deref(p, refs[i])
		if err != nil {
			return nil, err
		}
		n, err := w.node(o, p, 0)
		if err != nil {
			return nil, err
		}
		cache[i] = n
		return n, nil
	}
	return newSubsystem(len(refs), cell, binary.LittleEndian)
}
