package hdf5

import (
	"bytes"
	"encoding/binary"
)

// Header message types.
const (
	msgNil          = 0x00
	msgDataspace    = 0x01
	msgLinkInfo     = 0x02
	msgDatatype     = 0x03
	msgFillOld      = 0x04
	msgFill         = 0x05
	msgLink         = 0x06
	msgExternal     = 0x07
	msgLayout       = 0x08
	msgBogus        = 0x09
	msgGroupInfo    = 0x0A
	msgFilters      = 0x0B
	msgAttribute    = 0x0C
	msgComment      = 0x0D
	msgModTimeOld   = 0x0E
	msgSharedTable  = 0x0F
	msgContinuation = 0x10
	msgSymbolTable  = 0x11
	msgModTime      = 0x12
	msgBTreeK       = 0x13
	msgDriverInfo   = 0x14
	msgAttrInfo     = 0x15
	msgRefCount     = 0x16
)

// message is one raw header message.
type message struct {
	typ   uint16
	flags uint8
	data  []byte
	addr  uint64 // address of the message data (for errors)
}

// objectHeader is a parsed object header: its messages in order.
type objectHeader struct {
	addr    uint64
	version int
	msgs    []message
	size    int64 // bytes of its blocks (for the cache bound)
}

// maxHeaderMessages bounds the messages of one object header.
const maxHeaderMessages = 1 << 16

func (f *File) header(addr uint64) (*objectHeader, error) {
	f.mu.Lock()
	h := f.headers[addr]
	f.mu.Unlock()
	if h != nil {
		return h, nil
	}
	h, err := f.parseHeader(addr)
	if err != nil {
		return nil, err
	}
	f.mu.Lock()
	if len(f.headers) > 1<<16 || f.headerBytes+h.size > maxCacheBytes {
		f.headers, f.headerBytes = map[uint64]*objectHeader{}, 0
	}
	f.headers[addr] = h
	f.headerBytes += h.size
	f.mu.Unlock()
	return h, nil
}

type contBlock struct{ addr, size uint64 }

func (f *File) parseHeader(addr uint64) (*objectHeader, error) {
	first, err := f.readUpTo(addr, 16, "object header")
	if err != nil {
		return nil, err
	}
	h := &objectHeader{addr: addr}
	seen := map[uint64]bool{}
	var conts []contBlock
	if len(first) >= 4 && bytes.Equal(first[:4], []byte("OHDR")) {
		h.version = 2
		pre, err := f.readUpTo(addr, 4+1+1+16+4+8, "object header")
		if err != nil {
			return nil, err
		}
		d := &dec{b: pre, pos: 4}
		if v := d.u8(); v != 2 {
			return nil, f.corrupt(int64(addr), "object header version %d after OHDR", v)
		}
		flags := d.u8()
		if flags&0x20 != 0 {
			d.skip(16)
		}
		if flags&0x10 != 0 {
			d.skip(4)
		}
		size := d.uvar(1 << (flags & 3))
		if !d.ok() {
			return nil, f.corrupt(int64(addr), "truncated object header")
		}
		total := uint64(d.pos) + size + 4
		if size > maxMetaBlock {
			return nil, f.corrupt(int64(addr), "object header chunk of %d bytes", size)
		}
		b, err := f.readAt(addr, total, "object header")
		if err != nil {
			return nil, err
		}
		h.size += int64(len(b))
		if err := f.verifyChecksum(b, addr, "object header"); err != nil {
			return nil, err
		}
		seen[addr] = true
		if conts, err = f.parseV2Messages(h, b[d.pos:len(b)-4], addr+uint64(d.pos), flags, conts); err != nil {
			return nil, err
		}
		for i := 0; i < len(conts); i++ {
			c := conts[i]
			if seen[c.addr] {
				return nil, f.corrupt(int64(c.addr), "object header continuation loops back")
			}
			seen[c.addr] = true
			if len(seen) > 1<<12 {
				return nil, f.corrupt(int64(addr), "too many object header continuation blocks")
			}
			if c.size < 8 || c.size > maxMetaBlock {
				return nil, f.corrupt(int64(c.addr), "object header continuation block of %d bytes", c.size)
			}
			b, err := f.readAt(c.addr, c.size, "object header continuation")
			if err != nil {
				return nil, err
			}
			h.size += int64(len(b))
			if !bytes.Equal(b[:4], []byte("OCHK")) {
				return nil, f.corrupt(int64(c.addr), "object header continuation block without OCHK signature")
			}
			if err := f.verifyChecksum(b, c.addr, "object header continuation"); err != nil {
				return nil, err
			}
			if conts, err = f.parseV2Messages(h, b[4:len(b)-4], c.addr+4, flags, conts); err != nil {
				return nil, err
			}
		}
		return h, nil
	}
	if len(first) < 16 || first[0] != 1 {
		return nil, f.corrupt(int64(addr), "no object header here (version byte %d)", first[0])
	}
	h.version = 1
	nmsgs := binary.LittleEndian.Uint16(first[2:])
	size := uint64(binary.LittleEndian.Uint32(first[8:]))
	if size > maxMetaBlock {
		return nil, f.corrupt(int64(addr), "object header of %d bytes", size)
	}
	b, err := f.readAt(addr+16, size, "object header")
	if err != nil {
		return nil, err
	}
	h.size += int64(len(b))
	seen[addr] = true
	if conts, err = f.parseV1Messages(h, b, addr+16, conts); err != nil {
		return nil, err
	}
	for i := 0; i < len(conts); i++ {
		c := conts[i]
		if seen[c.addr] {
			return nil, f.corrupt(int64(c.addr), "object header continuation loops back")
		}
		seen[c.addr] = true
		if len(seen) > 1<<12 {
			return nil, f.corrupt(int64(addr), "too many object header continuation blocks")
		}
		if c.size > maxMetaBlock {
			return nil, f.corrupt(int64(c.addr), "object header continuation block of %d bytes", c.size)
		}
		b, err := f.readAt(c.addr, c.size, "object header continuation")
		if err != nil {
			return nil, err
		}
		h.size += int64(len(b))
		if conts, err = f.parseV1Messages(h, b, c.addr, conts); err != nil {
			return nil, err
		}
	}
	_ = nmsgs // the count includes messages in continuation blocks; blocks are parsed fully instead
	return h, nil
}

func (f *File) addMessage(h *objectHeader, m message, conts []contBlock) ([]contBlock, error) {
	if len(h.msgs) >= maxHeaderMessages {
		return conts, f.corrupt(int64(h.addr), "object header with over %d messages", maxHeaderMessages)
	}
	if m.typ == msgContinuation {
		d := &dec{b: m.data}
		c := contBlock{d.u64(), d.u64()}
		if !d.ok() {
			return conts, f.corrupt(int64(m.addr), "truncated continuation message")
		}
		return append(conts, c), nil
	}
	if m.typ == msgNil {
		return conts, nil
	}
	h.msgs = append(h.msgs, m)
	return conts, nil
}

func (f *File) parseV1Messages(h *objectHeader, b []byte, addr uint64, conts []contBlock) ([]contBlock, error) {
	d := &dec{b: b}
	for d.rest() >= 8 {
		start := d.pos
		typ := d.u16()
		size := int(d.u16())
		flags := d.u8()
		d.skip(3)
		data := d.bytes(size)
		if !d.ok() {
			return conts, f.corrupt(int64(addr)+int64(start), "object header message of %d bytes runs past its block", size)
		}
		var err error
		if conts, err = f.addMessage(h, message{typ: typ, flags: flags, data: data, addr: addr + uint64(start+8)}, conts); err != nil {
			return conts, err
		}
		d.align(8)
	}
	return conts, nil
}

func (f *File) parseV2Messages(h *objectHeader, b []byte, addr uint64, hflags uint8, conts []contBlock) ([]contBlock, error) {
	d := &dec{b: b}
	hsize := 4
	if hflags&0x04 != 0 {
		hsize = 6
	}
	for d.rest() >= hsize {
		start := d.pos
		typ := d.u8()
		size := int(d.u16())
		flags := d.u8()
		if hflags&0x04 != 0 {
			d.skip(2)
		}
		data := d.bytes(size)
		if !d.ok() {
			return conts, f.corrupt(int64(addr)+int64(start), "object header message of %d bytes runs past its block", size)
		}
		var err error
		if conts, err = f.addMessage(h, message{typ: uint16(typ), flags: flags, data: data, addr: addr + uint64(start+hsize)}, conts); err != nil {
			return conts, err
		}
	}
	return conts, nil
}

// find returns the first message of the given type, or nil.
func (h *objectHeader) find(typ uint16) *message {
	for i := range h.msgs {
		if h.msgs[i].typ == typ {
			return &h.msgs[i]
		}
	}
	return nil
}
