package block

import (
	"bytes"
	"fmt"
	"testing"
	"unsafe"
)

// TestCopiesShareBlocks: copies are equal to what was given, independent of it, and
// packed into blocks: 10,000 small strings take a few blocks, not 10,000 objects.
func TestCopiesShareBlocks(t *testing.T) {
	var b Block
	var got []string
	for i := range 10000 {
		src := []byte(fmt.Sprintf("subject-%d-value", i))
		s := b.String(string(src))
		src[0] = 'X' // the copy does not follow
		got = append(got, s)
	}
	breaks := 0 // where a string does not start right after the one before
	for i, s := range got {
		if want := fmt.Sprintf("subject-%d-value", i); s != want {
			t.Fatalf("copy %d = %q, want %q", i, s, want)
		}
		if i > 0 && uintptr(unsafe.Pointer(unsafe.StringData(s))) != uintptr(unsafe.Pointer(unsafe.StringData(got[i-1])))+uintptr(len(got[i-1])) {
			breaks++
		}
	}
	if breaks > 1 { // about 160 KB: one block, or the end of one and a new one
		t.Errorf("10,000 strings of 15 to 19 bytes in %d runs; want them one after another in 1 or 2 blocks", breaks+1)
	}
	if b.Len() < 160000 {
		t.Errorf("Len = %d, want the bytes handed out", b.Len())
	}
}

// TestBytesCannotOverwriteTheNext: appending to a slice from the block copies it, so
// the value after it in the block is never overwritten.
func TestBytesCannotOverwriteTheNext(t *testing.T) {
	var b Block
	first := b.Bytes([]byte("abc"))
	second := b.Bytes([]byte("def"))
	first = append(first, 'X')
	if string(second) != "def" || string(first) != "abcX" {
		t.Fatalf("first %q, second %q", first, second)
	}
	if b.Bytes(nil) != nil || b.Bytes([]byte{}) == nil || b.String("") != "" {
		t.Fatal("empty values are not kept as given")
	}
}

// TestLargeApart: a value larger than an eighth of a block is its own allocation, and
// the block being filled is kept for the small ones after it.
func TestLargeApart(t *testing.T) {
	var b Block
	a := b.Bytes([]byte("a"))
	big := b.Bytes(bytes.Repeat([]byte{'x'}, Size/4))
	c := b.Bytes([]byte("c"))
	if len(big) != Size/4 || cap(big) != Size/4 {
		t.Fatalf("big: len %d cap %d", len(big), cap(big))
	}
	if uintptr(unsafe.Pointer(&c[0]))-uintptr(unsafe.Pointer(&a[0])) != 1 {
		t.Error("the small value after a large one is not next to the one before")
	}
}
