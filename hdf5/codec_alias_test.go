package hdf5

import "github.com/npyflow/npyflow/internal/codec"

// Names the codec tests of this package use for internal/codec's pieces.
var (
	blosclzDecode     = codec.BlosclzDecode
	bitUnshuffle      = codec.BitUnshuffle
	bshufDefaultBlock = codec.BitshuffleDefaultBlock
)
