// Package block keeps many small strings and byte slices that live as long as each
// other in a few large blocks of memory instead of an object each.
//
// A long-lived process (serve) holds millions of small strings and bodies for hours;
// every collection visits each of them (its span, its mark bit), and at 100,000
// subjects that was the cost that held the embedded registry's GET latest under 0.9
// of a bare handler (issue 31; docs/performance.md, "The embedded registry at 100,000
// subjects"). Pointers into one block are visited as one object.
//
// A block lives as long as any string or slice in it: use one for values that are
// dropped together (a snapshot's), not for values replaced one at a time.
package block

import "unsafe"

// Size is the size of a block; a value larger than Size/8 is allocated apart.
const Size = 256 << 10

// Block hands out copies of strings and byte slices in shared blocks of memory. The
// zero Block is ready to use; it is not safe for concurrent use.
type Block struct {
	cur []byte // the block being filled: len is used, cap is its size
	n   int64  // bytes handed out
}

// String returns a copy of s.
func (b *Block) String(s string) string {
	if s == "" {
		return ""
	}
	p := b.room(len(s))
	copy(p, s)
	return unsafe.String(&p[0], len(p)) // p is never written again
}

// Bytes returns a copy of p whose capacity is its length: appending to it copies.
// A nil or empty p gives an empty, non-nil slice when p is not nil.
func (b *Block) Bytes(p []byte) []byte {
	if len(p) == 0 {
		if p == nil {
			return nil
		}
		return []byte{}
	}
	q := b.room(len(p))
	copy(q, p)
	return q
}

// Len is how many bytes b has handed out.
func (b *Block) Len() int64 { return b.n }

// room returns n bytes no one else has: in the current block, a new one, or (when n is
// large) apart.
func (b *Block) room(n int) []byte {
	b.n += int64(n)
	if n > Size/8 {
		return make([]byte, n)
	}
	if cap(b.cur)-len(b.cur) < n {
		b.cur = make([]byte, 0, Size)
	}
	at := len(b.cur)
	b.cur = b.cur[:at+n]
	return b.cur[at : at+n : at+n]
}
