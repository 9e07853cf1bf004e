package codec_test

import (
	"errors"

	"github.com/weir-engine/weir/internal/codec"
)

func isCorrupt(err error) bool { return errors.Is(err, codec.ErrCorrupt) }
