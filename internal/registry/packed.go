package registry

import (
	"fmt"
	"sync"

	"github.com/klauspost/compress/s2"

	"github.com/contractbot/contractbot/internal/block"
)

// Version bodies are kept compressed (S2 with a dictionary made from the repository's
// own bodies) and inflated per answer into a pooled buffer. At 100,000 subjects the
// bodies were 370 MB of serve's 627 MB live heap; the latest ones, 337 MB, pack into
// 27 MB on the generated repository (one whose schemas are less alike packs less:
// without a dictionary, 119 MB), and inflating one costs about as much as copying it
// twice (BenchmarkPacked; docs/performance.md, "The embedded registry at 100,000
// subjects").

// dictBytes is the most of the sample a dictionary is made from (S2's largest
// dictionary is 64 KiB).
const dictBytes = 60 << 10

// dictSamples is how many bodies, spread over the subjects, the sample takes at most.
const dictSamples = 64

// makeDict makes the dictionary from sample bodies (nil when they are too few to
// make one: bodies are then packed without).
func makeDict(samples [][]byte) *s2.Dict {
	var raw []byte
	for _, b := range samples {
		if room := dictBytes - len(raw); room > 0 {
			raw = append(raw, b[:min(len(b), room)]...)
		}
	}
	return s2.MakeDict(raw, nil)
}

// packed is a body kept compressed.
type packed struct {
	data []byte
	dict *s2.Dict // nil: packed without one
	size int      // the body's length
}

// pack compresses body. The encoders write into a buffer of the worst case's size,
// larger than the body (scratch, grown as needed and reused by the next call): data
// is a copy in into of just what they wrote (kept, the buffer would have been a third
// more than the body it packs).
func pack(dict *s2.Dict, body []byte, scratch *[]byte, into *block.Block) packed {
	if n := s2.MaxEncodedLen(len(body)); cap(*scratch) < n {
		*scratch = make([]byte, n)
	}
	buf := (*scratch)[:cap(*scratch)]
	var data []byte
	if dict != nil {
		data = dict.EncodeBetter(buf, body)
	} else {
		data = s2.EncodeBetter(buf, body)
	}
	return packed{data: into.Bytes(data), dict: dict, size: len(body)}
}

// into inflates the body into dst's storage (growing it when it is too small) and
// returns it.
func (p packed) into(dst []byte) []byte {
	if cap(dst) < p.size {
		dst = make([]byte, p.size)
	}
	dst = dst[:p.size]
	var out []byte
	var err error
	if p.dict != nil {
		out, err = p.dict.Decode(dst, p.data)
	} else {
		out, err = s2.Decode(dst, p.data)
	}
	if err != nil || len(out) != p.size {
		// pack made data from a body of this size in this process: it inflates.
		panic(fmt.Sprintf("registry: a packed body of %d bytes does not inflate: %v", p.size, err))
	}
	return out
}

// bytes is the body in a new slice.
func (p packed) bytes() []byte { return p.into(nil) }

// bodyBuffers are the buffers answers inflate bodies into.
var bodyBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 8<<10); return &b }}

// maxPooled is the largest buffer put back: a rare big schema's buffer is let go.
const maxPooled = 256 << 10

// borrow inflates the body into a pooled buffer; hand both back with giveBack once
// the body is written (nothing may keep it).
func (p packed) borrow() ([]byte, *[]byte) {
	bp := bodyBuffers.Get().(*[]byte)
	return p.into(*bp), bp
}

func giveBack(body []byte, bp *[]byte) {
	if cap(body) <= maxPooled {
		*bp = body[:0]
		bodyBuffers.Put(bp)
	}
}
