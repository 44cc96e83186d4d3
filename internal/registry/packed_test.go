package registry

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/contractbot/contractbot/internal/block"
)

// Bodies come back byte for byte, packed with a dictionary or without, from empty to
// larger than the buffers the pool keeps, and while many answers inflate at once.
func TestPackedRoundTrip(t *testing.T) {
	var samples [][]byte
	for i := range 80 {
		samples = append(samples, []byte(fmt.Sprintf(`{"subject":"orders.s%d-value","version":1,"id":%d,"schema":"{\"type\":\"record\",\"name\":\"R%d\",\"fields\":[]}"}`, i, i, i)))
	}
	dict := makeDict(samples)
	var scratch []byte // one encoder buffer for every body, as a build has
	var blk block.Block
	if dict == nil {
		t.Fatal("no dictionary from 80 samples")
	}
	bodies := [][]byte{
		{},
		[]byte(`{}`),
		samples[3],
		[]byte(strings.Repeat(`{"name":"f","type":"string"},`, 20_000)), // 600 KB: over maxPooled
		bytes.Repeat([]byte{0xff, 0x00, 0x7f}, 5000),                    // nothing like the dictionary
	}
	for _, d := range []struct {
		name string
		p    func([]byte) packed
	}{{"dictionary", func(b []byte) packed { return pack(dict, b, &scratch, &blk) }}, {"none", func(b []byte) packed { return pack(nil, b, &scratch, &blk) }}} {
		var wg sync.WaitGroup
		for i, b := range bodies {
			p := d.p(b)
			if got := p.bytes(); !bytes.Equal(got, b) {
				t.Errorf("%s: body %d (%d bytes) came back as %d bytes", d.name, i, len(b), len(got))
			}
			for range 8 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for range 50 {
						got, bp := p.borrow()
						if !bytes.Equal(got, b) {
							t.Errorf("%s: body %d borrowed as %d bytes, want %d", d.name, i, len(got), len(b))
						}
						giveBack(got, bp)
					}
				}()
			}
		}
		wg.Wait()
	}
	if p := pack(dict, samples[7], &scratch, &blk); cap(p.data) >= len(samples[7])/2 {
		t.Errorf("a body like the dictionary's samples packed into %d bytes (capacity %d) of its %d; want less than half", len(p.data), cap(p.data), len(samples[7]))
	}
}
