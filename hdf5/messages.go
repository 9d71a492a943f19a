package hdf5

// dataspace is a parsed dataspace message.
type dataspace struct {
	null    bool // no elements at all (H5S_NULL)
	dims    []uint64
	maxDims []uint64 // nil when not stored (equal to dims)
}

const maxRank = 32

func (f *File) parseDataspace(b []byte, addr uint64) (*dataspace, error) {
	d := &dec{b: b}
	ver := d.u8()
	rank := int(d.u8())
	flags := d.u8()
	s := &dataspace{}
	switch ver {
	case 1:
		d.skip(5)
	case 2:
		typ := d.u8()
		switch typ {
		case 0: // scalar
			rank = 0
		case 1:
		case 2:
			s.null = true
			rank = 0
		default:
			return nil, f.corrupt(int64(addr), "dataspace type %d", typ)
		}
	default:
		return nil, f.corrupt(int64(addr), "dataspace version %d", ver)
	}
	if rank > maxRank {
		return nil, f.corrupt(int64(addr), "dataspace of rank %d", rank)
	}
	s.dims = make([]uint64, rank)
	for i := range s.dims {
		s.dims[i] = d.u64()
	}
	if flags&1 != 0 {
		s.maxDims = make([]uint64, rank)
		for i := range s.maxDims {
			s.maxDims[i] = d.u64()
		}
	}
	if !d.ok() {
		return nil, f.corrupt(int64(addr), "truncated dataspace message")
	}
	return s, nil
}

// count is the number of elements, ok=false on overflow.
func (s *dataspace) count() (uint64, bool) {
	if s.null {
		return 0, true
	}
	n := uint64(1)
	for _, v := range s.dims {
		var ok bool
		if n, ok = mulOK(n, v, 1<<62); !ok {
			return 0, false
		}
	}
	return n, true
}

// Layout classes.
const (
	LayoutCompact    = 0
	LayoutContiguous = 1
	LayoutChunked    = 2
	LayoutVirtual    = 3
)

// Chunk index kinds (Layout.Index).
const (
	IndexBTree1      = 0 // version 1 B-tree (layout versions 1-3)
	IndexSingle      = 1
	IndexImplicit    = 2
	IndexFixedArray  = 3
	IndexExtensible  = 4
	IndexBTree2      = 5
	IndexNone        = -1 // not chunked
	maxChunkElements = 1 << 40
)

// Filter is one filter of a dataset's pipeline.
type Filter struct {
	ID       int
	Name     string
	Optional bool
	Params   []uint32
}

// Layout describes how a dataset's data is stored.
type Layout struct {
	Class   int      // LayoutCompact, LayoutContiguous or LayoutChunked
	Version int      // layout message version
	Chunk   []uint64 // chunk dimensions (chunked only; rank of the dataset)
	Index   int      // chunk index kind (IndexBTree1 ... IndexBTree2), IndexNone if not chunked
	Filters []Filter

	addr     uint64 // data address (contiguous) or index address (chunked)
	size     uint64 // contiguous size
	compact  []byte
	elemSize uint64
	flags    uint8
	single   struct {
		size uint64
		mask uint32
	} // filtered single chunk
	pageBits  uint8
	ea        eaParams
	chunkSize uint64 // bytes of one uncompressed chunk
}

type eaParams struct {
	maxBits, idxElems, minPtrs, minElems, pageBits uint8
}

// ClassName is "compact", "contiguous", "chunked" or "virtual".
func (l *Layout) ClassName() string {
	switch l.Class {
	case LayoutCompact:
		return "compact"
	case LayoutContiguous:
		return "contiguous"
	case LayoutChunked:
		return "chunked"
	case LayoutVirtual:
		return "virtual"
	}
	return "unknown"
}

// IndexName names the chunk index ("btree-v1", "single", "implicit",
// "fixed-array", "extensible-array", "btree-v2"), "" when not chunked.
func (l *Layout) IndexName() string {
	switch l.Index {
	case IndexBTree1:
		return "btree-v1"
	case IndexSingle:
		return "single"
	case IndexImplicit:
		return "implicit"
	case IndexFixedArray:
		return "fixed-array"
	case IndexExtensible:
		return "extensible-array"
	case IndexBTree2:
		return "btree-v2"
	}
	return ""
}

func (f *File) parseLayout(b []byte, addr uint64, rank int) (*Layout, error) {
	d := &dec{b: b}
	l := &Layout{Version: int(d.u8()), Index: IndexNone}
	switch l.Version {
	case 1, 2:
		nd := int(d.u8())
		l.Class = int(d.u8())
		d.skip(5)
		if l.Class != LayoutCompact {
			l.addr = d.u64()
		}
		if nd > maxRank+1 {
			return nil, f.corrupt(int64(addr), "layout of rank %d", nd)
		}
		dims := make([]uint64, nd)
		for i := range dims {
			dims[i] = uint64(d.u32())
		}
		switch l.Class {
		case LayoutChunked:
			// The last dimension is the element size, as in version 3.
			l.Index = IndexBTree1
			if nd < 1 {
				return nil, f.corrupt(int64(addr), "chunked layout of rank 0")
			}
			l.Chunk = dims[:nd-1]
			l.elemSize = dims[nd-1]
		case LayoutCompact:
			n := d.u32()
			l.compact = d.bytes(int(n))
		case LayoutContiguous:
			n := uint64(1)
			for _, v := range dims {
				n, _ = mulOK(n, v, 1<<62)
			}
			l.size = n
		default:
			return nil, f.corrupt(int64(addr), "layout class %d", l.Class)
		}
	case 3, 4:
		l.Class = int(d.u8())
		switch l.Class {
		case LayoutCompact:
			n := d.u16()
			l.compact = d.bytes(int(n))
		case LayoutContiguous:
			l.addr = d.u64()
			l.size = d.u64()
		case LayoutChunked:
			if l.Version == 3 {
				nd := int(d.u8())
				l.addr = d.u64()
				if nd < 1 || nd > maxRank+1 {
					return nil, f.corrupt(int64(addr), "chunked layout of rank %d", nd)
				}
				dims := make([]uint64, nd)
				for i := range dims {
					dims[i] = uint64(d.u32())
				}
				l.Chunk = dims[:nd-1]
				l.elemSize = dims[nd-1]
				l.Index = IndexBTree1
			} else {
				l.flags = d.u8()
				nd := int(d.u8())
				enc := int(d.u8())
				if nd < 1 || nd > maxRank+1 || enc < 1 || enc > 8 {
					return nil, f.corrupt(int64(addr), "chunked layout of rank %d with %d-byte dimensions", nd, enc)
				}
				dims := make([]uint64, nd)
				for i := range dims {
					dims[i] = d.uvar(enc)
				}
				l.Chunk = dims[:nd-1]
				l.elemSize = dims[nd-1]
				l.Index = int(d.u8())
				switch l.Index {
				case IndexSingle:
					if l.flags&2 != 0 {
						l.single.size = d.u64()
						l.single.mask = d.u32()
					}
				case IndexImplicit:
				case IndexFixedArray:
					l.pageBits = d.u8()
				case IndexExtensible:
					l.ea = eaParams{d.u8(), d.u8(), d.u8(), d.u8(), d.u8()}
				case IndexBTree2:
					d.skip(6)
				default:
					return nil, f.corrupt(int64(addr), "chunk index type %d", l.Index)
				}
				l.addr = d.u64()
			}
		case LayoutVirtual:
			return l, nil
		default:
			return nil, f.corrupt(int64(addr), "layout class %d", l.Class)
		}
	default:
		return nil, f.corrupt(int64(addr), "layout message version %d", l.Version)
	}
	if !d.ok() {
		return nil, f.corrupt(int64(addr), "truncated layout message")
	}
	if l.Class == LayoutChunked {
		if len(l.Chunk) != rank {
			return nil, f.corrupt(int64(addr), "chunk rank %d for a dataset of rank %d", len(l.Chunk), rank)
		}
		n := l.elemSize
		for _, v := range l.Chunk {
			if v == 0 {
				return nil, f.corrupt(int64(addr), "chunk dimension 0")
			}
			var ok bool
			if n, ok = mulOK(n, v, 1<<62); !ok {
				return nil, f.corrupt(int64(addr), "chunk of %v elements too large", l.Chunk)
			}
		}
		l.chunkSize = n
	}
	return l, nil
}

// Known filter identifiers.
const (
	FilterDeflate     = 1
	FilterShuffle     = 2
	FilterFletcher32  = 3
	FilterSZIP        = 4
	FilterNBit        = 5
	FilterScaleOffset = 6
)

func filterName(id int) string {
	switch id {
	case FilterDeflate:
		return "deflate"
	case FilterShuffle:
		return "shuffle"
	case FilterFletcher32:
		return "fletcher32"
	case FilterSZIP:
		return "szip"
	case FilterNBit:
		return "nbit"
	case FilterScaleOffset:
		return "scaleoffset"
	case 32000:
		return "lzf"
	case 32001:
		return "blosc"
	case 32004:
		return "lz4"
	case 32008:
		return "bitshuffle"
	case 32015:
		return "zstd"
	}
	return ""
}

func (f *File) parseFilters(b []byte, addr uint64) ([]Filter, error) {
	d := &dec{b: b}
	ver := d.u8()
	n := int(d.u8())
	if ver == 1 {
		d.skip(6)
	} else if ver != 2 {
		return nil, f.corrupt(int64(addr), "filter pipeline version %d", ver)
	}
	if n > 32 {
		return nil, f.corrupt(int64(addr), "filter pipeline of %d filters", n)
	}
	out := make([]Filter, 0, n)
	for i := 0; i < n; i++ {
		var fl Filter
		fl.ID = int(d.u16())
		nameLen := 0
		if ver == 1 || fl.ID >= 256 {
			nameLen = int(d.u16())
		}
		flags := d.u16()
		fl.Optional = flags&1 != 0
		nv := int(d.u16())
		if nameLen > 0 {
			nb := d.bytes(nameLen)
			for j, c := range nb {
				if c == 0 {
					nb = nb[:j]
					break
				}
			}
			fl.Name = string(nb)
			if ver == 1 {
				d.align8From(nameLen)
			}
		}
		if nv > d.rest()/4 {
			return nil, f.corrupt(int64(addr), "filter with %d parameters", nv)
		}
		for j := 0; j < nv; j++ {
			fl.Params = append(fl.Params, d.u32())
		}
		if ver == 1 && nv%2 == 1 {
			d.skip(4)
		}
		if fl.Name == "" {
			fl.Name = filterName(fl.ID)
		}
		if !d.ok() {
			return nil, f.corrupt(int64(addr), "truncated filter pipeline message")
		}
		out = append(out, fl)
	}
	return out, nil
}

// parseFill returns the fill value bytes (nil when undefined or default).
func (f *File) parseFill(b []byte, addr uint64) ([]byte, error) {
	d := &dec{b: b}
	ver := d.u8()
	switch ver {
	case 1, 2:
		d.skip(2)
		defined := d.u8()
		if ver == 1 || defined != 0 {
			n := d.u32()
			v := d.bytes(int(n))
			if !d.ok() {
				return nil, f.corrupt(int64(addr), "truncated fill value message")
			}
			return v, nil
		}
	case 3:
		flags := d.u8()
		if flags&0x20 != 0 {
			n := d.u32()
			v := d.bytes(int(n))
			if !d.ok() {
				return nil, f.corrupt(int64(addr), "truncated fill value message")
			}
			return v, nil
		}
	default:
		return nil, f.corrupt(int64(addr), "fill value message version %d", ver)
	}
	return nil, nil
}
