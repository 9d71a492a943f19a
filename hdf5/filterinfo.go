package hdf5

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
)

// registeredFilter is one filter id of the HDF Group's list of registered
// filter plugins (docs/RegisteredFilterPlugins.md in HDFGroup/hdf5_plugins)
// or one of the library's own filters (1 to 6).
type registeredFilter struct {
	name string
	// lossy: the filter may discard information when it encodes (a lossy
	// or quantizing mode exists). Decoding gives back what was stored
	// either way; the flag only tells a user the values may differ from
	// what the producer had in memory.
	lossy bool
}

// registeredFilters maps HDF5 filter ids to their registered names. Ids
// 256 to 511 are for testing and 32768 and up for private use: they have
// no registered name.
var registeredFilters = map[int]registeredFilter{
	1:     {name: "deflate"},
	2:     {name: "shuffle"},
	3:     {name: "fletcher32"},
	4:     {name: "szip"},
	5:     {name: "nbit"},
	6:     {name: "scaleoffset", lossy: true}, // floats with a decimal scale factor
	257:   {name: "hzip"},
	258:   {name: "fpzip", lossy: true}, // duplicate id of 32014 (Silo)
	305:   {name: "lzo"},
	307:   {name: "bzip2"},
	32000: {name: "lzf"},
	32001: {name: "blosc"},
	32002: {name: "mafisc"},
	32003: {name: "snappy"},
	32004: {name: "lz4"},
	32005: {name: "apax", lossy: true},
	32006: {name: "cbf"},
	32007: {name: "jpeg-xr", lossy: true},
	32008: {name: "bitshuffle"},
	32009: {name: "spdp"},
	32010: {name: "lpc-rice"},
	32011: {name: "ccsds-123"},
	32012: {name: "jpeg-ls", lossy: true}, // near-lossless mode
	32013: {name: "zfp", lossy: true},
	32014: {name: "fpzip", lossy: true},
	32015: {name: "zstd"},
	32016: {name: "b3d", lossy: true},
	32017: {name: "sz", lossy: true},
	32018: {name: "fcidecomp"},
	32019: {name: "jpeg", lossy: true},
	32020: {name: "vbz"},
	32021: {name: "fapec", lossy: true},
	32022: {name: "bitgroom", lossy: true},
	32023: {name: "granular-bitround", lossy: true},
	32024: {name: "sz3", lossy: true},
	32025: {name: "delta-rice"},
	32026: {name: "blosc2"},
	32027: {name: "flac"},
	32028: {name: "sperr", lossy: true},
	32029: {name: "trpx"},
	32030: {name: "ffmpeg", lossy: true},
}

// RegisteredFilterName returns the registered name of an HDF5 filter id
// ("zstd" for 32015, "zfp" for 32013) and whether the id is registered,
// from the HDF Group's list of registered filter plugins and the
// library's own filters 1 to 6.
func RegisteredFilterName(id int) (string, bool) {
	r, ok := registeredFilters[id]
	return r.name, ok
}

// filterDecodable reports whether chunks with filter id can be decoded:
// deflate, shuffle and fletcher32, or a decoder in filterCodecs.
func filterDecodable(id int) bool {
	switch id {
	case FilterDeflate, FilterShuffle, FilterFletcher32:
		return true
	}
	_, ok := filterCodecs[id]
	return ok
}

// FilterInfo describes one filter of a dataset's pipeline, for display:
// [Dataset.FilterPipeline] lists them in the order they were applied when
// the data were written (they are undone in the reverse order).
type FilterInfo struct {
	ID int
	// Name is the registered name of ID (RegisteredFilterName), else the
	// name stored in the file, else "".
	Name string
	// StoredName is the name the pipeline message holds ("" when none:
	// the library's own filters usually store none).
	StoredName string
	// Params are the filter's client data values (cd_values) as stored.
	Params []uint32
	// Optional is set when the writer marked the filter optional: chunks
	// it did not help were stored without it.
	Optional bool
	// Registered tells whether ID is in the HDF Group's list.
	Registered bool
	// Lossy tells a registered filter that may discard information.
	Lossy bool
	// Decodable tells whether this package undoes the filter.
	Decodable bool
}

// String is the filter's name and its parameters by name where they are
// documented: "deflate(level=4)", "shuffle(elemsize=8)", "zstd(level=3)",
// "blosc(typesize=8, clevel=5, shuffle=byte, compressor=lz4)"; otherwise
// the raw values: "filter 40000(1, 2)". Lossy and undecodable filters
// say so, and an undecodable filter whether it is optional:
// "zfp(268456208, ...) [lossy, optional, not decodable]".
func (fi FilterInfo) String() string {
	var sb strings.Builder
	switch {
	case fi.Name != "":
		sb.WriteString(fi.Name)
	default:
		sb.WriteString("filter " + strconv.Itoa(fi.ID))
	}
	if fi.Name != "" && !fi.Registered {
		fmt.Fprintf(&sb, "[%d]", fi.ID)
	}
	if p := fi.paramText(); p != "" {
		sb.WriteString("(" + p + ")")
	}
	var notes []string
	if fi.Lossy {
		notes = append(notes, "lossy")
	}
	if !fi.Decodable {
		if fi.Optional {
			// Chunks the writer stored without it read without it.
			notes = append(notes, "optional")
		}
		notes = append(notes, "not decodable")
	}
	if len(notes) > 0 {
		sb.WriteString(" [" + strings.Join(notes, ", ") + "]")
	}
	return sb.String()
}

// paramNames names the documented cd_values of some filters, position by
// position ("" skips a value that only the writer's library version
// holds).
var paramNames = map[int][]string{
	FilterDeflate:     {"level"},
	FilterShuffle:     {"elemsize"},
	FilterSZIP:        {"mask", "pixels_per_block", "bits_per_pixel", "pixels_per_scanline"},
	FilterScaleOffset: {"scale_type", "scale_factor", "elements", "class", "size", "sign", "order", "fill_defined"},
	307:               {"blocksize"},
	32000:             {"", "", "chunkbytes"},
	32001:             {"", "", "typesize", "chunkbytes", "clevel", "shuffle", "compressor"},
	32004:             {"blocksize"},
	32008:             {"", "", "typesize", "blocksize", "compression", "clevel"},
	32015:             {"level"},
	32026:             {"", "", "typesize", "chunkbytes", "clevel", "shuffle", "compressor"},
}

var bloscCompressors = []string{"blosclz", "lz4", "lz4hc", "snappy", "zlib", "zstd"}

func (fi FilterInfo) paramText() string {
	if fi.ID == FilterNBit || fi.ID == FilterFletcher32 {
		return "" // n-bit's values describe the datatype; fletcher32 has none
	}
	names := paramNames[fi.ID]
	var parts []string
	for i, v := range fi.Params {
		if i >= len(names) {
			if names != nil {
				break // values past the documented ones (nbit's, the writer's)
			}
			parts = append(parts, strconv.FormatUint(uint64(v), 10))
			continue
		}
		n := names[i]
		if n == "" {
			continue
		}
		val := strconv.FormatUint(uint64(v), 10)
		switch {
		case (fi.ID == 32001 || fi.ID == 32026) && n == "shuffle":
			val = [...]string{"none", "byte", "bit"}[min(v, 2)]
			if v > 2 {
				val = strconv.FormatUint(uint64(v), 10)
			}
		case (fi.ID == 32001 || fi.ID == 32026) && n == "compressor" && int(v) < len(bloscCompressors):
			val = bloscCompressors[v]
		case fi.ID == 32008 && n == "compression":
			switch v {
			case 0:
				val = "none"
			case 2:
				val = "lz4"
			case 3:
				val = "zstd"
			}
		case fi.ID == FilterSZIP && n == "mask":
			val = fmt.Sprintf("%#x", v)
		}
		parts = append(parts, n+"="+val)
	}
	return strings.Join(parts, ", ")
}

// FilterPipeline describes the dataset's filters in the order the writer
// applied them (nil for none, or when the dataset's metadata could not
// be read: see Err). It reads no data. Filters only apply to chunked
// datasets.
func (ds *Dataset) FilterPipeline() []FilterInfo {
	if ds.load() != nil {
		return nil
	}
	fl := ds.info.layout.Filters
	if len(fl) == 0 {
		return nil
	}
	out := make([]FilterInfo, len(fl))
	for i, f := range fl {
		out[i] = describeFilter(f)
	}
	return out
}

// storedName is the name the pipeline message held: parseFilters fills
// Name from filterName when the message has none.
func storedName(f Filter) string {
	if f.Name == filterName(f.ID) {
		return ""
	}
	return f.Name
}

func describeFilter(f Filter) FilterInfo {
	fi := FilterInfo{ID: f.ID, StoredName: storedName(f), Params: append([]uint32(nil), f.Params...),
		Optional: f.Optional, Decodable: filterDecodable(f.ID)}
	if r, ok := registeredFilters[f.ID]; ok {
		fi.Name, fi.Registered, fi.Lossy = r.name, true, r.lossy
	} else {
		fi.Name = fi.StoredName
	}
	return fi
}

// UnsupportedFilterError reports a dataset whose chunks need a filter
// this package does not decode: a lossy filter (zfp, sz, ...), one
// without a decoder here, or an unregistered id. It is returned, before
// any data are read, by [Dataset.CheckFilters] and by every read of the
// dataset (ReadAll, NewRowReader, NewElementReader, ReadSlab,
// ReadStrings, ...); the dataset's metadata (shape, type, layout) stay
// readable. It unwraps to ErrUnsupported, so a caller may skip the
// dataset with a warning and go on with the file's other datasets.
type UnsupportedFilterError struct {
	File    string // the file's name, if known
	Dataset string // the dataset's path
	ID      int    // the filter id
	// Name is the registered name of ID, else the name stored in the
	// file ("" if neither).
	Name       string
	Registered bool // ID is in the HDF Group's list of registered filters
	Lossy      bool // a registered filter that may discard information
}

func (e *UnsupportedFilterError) Error() string {
	var sb strings.Builder
	sb.WriteString("hdf5: ")
	if e.File != "" {
		sb.WriteString(e.File + ": ")
	}
	if e.Dataset != "" {
		sb.WriteString(e.Dataset + ": ")
	}
	fmt.Fprintf(&sb, "unsupported: filter %d", e.ID)
	switch {
	case e.Registered && e.Lossy:
		fmt.Fprintf(&sb, " (%s, lossy)", e.Name)
	case e.Registered:
		fmt.Fprintf(&sb, " (%s)", e.Name)
	case e.Name != "":
		fmt.Fprintf(&sb, " (%q, an unregistered id)", e.Name)
	default:
		sb.WriteString(" (an unregistered id)")
	}
	sb.WriteString(" is not available")
	return sb.String()
}

func (e *UnsupportedFilterError) Unwrap() error { return ErrUnsupported }

// filterCheck caches the result of CheckFilters.
type filterCheck struct {
	once sync.Once
	err  error
}

// CheckFilters reports, without reading data, whether the dataset's
// chunks can be decoded: nil, or an *UnsupportedFilterError naming the
// first filter of the pipeline that has no decoder here (or the error
// that kept the chunk index from being read). A filter marked optional
// that every stored chunk skipped needs no decoder (the chunk index is
// read to find out). Compact and contiguous datasets have no filters.
func (ds *Dataset) CheckFilters() error {
	if err := ds.load(); err != nil {
		return err
	}
	ds.filt.once.Do(func() { ds.filt.err = ds.checkFilters() })
	return ds.filt.err
}

func (ds *Dataset) checkFilters() error {
	l := ds.info.layout
	if l.Class != LayoutChunked {
		return nil
	}
	var optional []int // pipeline positions of optional filters without a decoder
	var required *UnsupportedFilterError
	for i, fl := range l.Filters {
		if filterDecodable(fl.ID) {
			continue
		}
		if fl.Optional && i < 32 {
			optional = append(optional, i)
			continue
		}
		required = ds.filterError(fl)
		break
	}
	if required != nil {
		return required
	}
	if len(optional) == 0 {
		return nil
	}
	r, err := newChunkReaderNoCheck(ds)
	if err != nil {
		return err
	}
	used, err := r.filtersUsed()
	if err != nil {
		return err
	}
	for _, i := range optional {
		if used&(1<<uint(i)) != 0 {
			return ds.filterError(l.Filters[i])
		}
	}
	return nil
}

func (ds *Dataset) filterError(fl Filter) *UnsupportedFilterError {
	fi := describeFilter(fl)
	return &UnsupportedFilterError{File: ds.f.name, Dataset: ds.path, ID: fl.ID, Name: fi.Name, Registered: fi.Registered, Lossy: fi.Lossy}
}

// maxScanChunks bounds the chunks of an extensible array index that
// filtersUsed visits one by one.
const maxScanChunks = 1 << 22

// filtersUsed returns a mask with bit i set when some stored chunk was
// written through filter i of the pipeline (its skip bit is clear).
func (r *chunkReader) filtersUsed() (uint32, error) {
	l := r.layout
	if l.addr == undefAddr {
		return 0, nil
	}
	all := uint32(1)<<uint(min(len(r.filters), 32)) - 1
	if len(r.filters) >= 32 {
		all = ^uint32(0)
	}
	if !r.loaded {
		if err := r.load(); err != nil {
			return 0, err
		}
		r.loaded = true
	}
	var used uint32
	add := func(c chunkRec) {
		if c.addr != undefAddr {
			used |= ^c.mask & all
		}
	}
	switch l.Index {
	case IndexBTree1, IndexBTree2:
		for _, c := range r.table {
			add(c)
		}
	case IndexSingle:
		c, _, err := r.lookup(make([]uint64, len(r.dims)))
		if err != nil {
			return 0, err
		}
		add(c)
	case IndexFixedArray:
		for _, c := range r.farray {
			add(c)
		}
	case IndexExtensible:
		// Visit every chunk of the current grid, up to maxScanChunks:
		// past that the filter is taken as used (the dataset is refused
		// rather than the check made slow by a huge sparse grid).
		total := uint64(1)
		for _, n := range r.nchunks {
			if n == 0 {
				return 0, nil
			}
			var ok bool
			if total, ok = mulOK(total, n, maxScanChunks); !ok {
				return all, nil
			}
		}
		scaled := make([]uint64, len(r.dims))
		for {
			c, err := r.ea.get(r.maxLinear(scaled))
			if err != nil {
				return 0, err
			}
			add(c)
			if used == all {
				break
			}
			i := len(scaled) - 1
			for ; i >= 0; i-- {
				scaled[i]++
				if scaled[i] < r.nchunks[i] {
					break
				}
				scaled[i] = 0
			}
			if i < 0 {
				break
			}
		}
	default:
		// Implicit indexes hold unfiltered chunks only.
		return all, nil
	}
	return used, nil
}
