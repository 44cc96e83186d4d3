package synth

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"crypto/sha1"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/idxfile"
)

// writePack writes objs as one undeltified packfile (version 2) and its index into
// packDir. Objects are compressed in parallel at zlib.BestSpeed, trees stored.
func writePack(packDir string, objs []rawObject) error {
	if err := os.MkdirAll(packDir, 0o755); err != nil {
		return err
	}
	compressed := make([][]byte, len(objs))
	workers := runtime.GOMAXPROCS(0)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			var buf bytes.Buffer
			fast, _ := zlib.NewWriterLevel(&buf, zlib.BestSpeed)
			stored, _ := zlib.NewWriterLevel(&buf, zlib.NoCompression)
			for i := w; i < len(objs); i += workers {
				buf.Reset()
				// Trees are mostly 20-byte hashes that do not compress: store them.
				zw := fast
				if objs[i].t == plumbing.TreeObject {
					zw = stored
				}
				zw.Reset(&buf)
				// Writing to a bytes.Buffer cannot fail.
				_, _ = zw.Write(objs[i].data)
				_ = zw.Close()
				compressed[i] = append([]byte(nil), buf.Bytes()...)
			}
		}(w)
	}
	wg.Wait()

	tmp, err := os.CreateTemp(packDir, "tmp_pack_")
	if err != nil {
		return err
	}
	defer func() { _ = os.Remove(tmp.Name()) }() // gone after the rename; left only on failure
	sum := sha1.New()
	bw := bufio.NewWriterSize(tmp, 1<<20)
	out := io.MultiWriter(bw, sum)
	var pos int64
	// bufio.Writer keeps its first error and Flush returns it; the hash never fails.
	write := func(b []byte) {
		_, _ = out.Write(b)
		pos += int64(len(b))
	}
	hdr := make([]byte, 12)
	copy(hdr, "PACK")
	binary.BigEndian.PutUint32(hdr[4:], 2)
	binary.BigEndian.PutUint32(hdr[8:], uint32(len(objs)))
	write(hdr)
	idx := &idxfile.Writer{}
	if err := idx.OnHeader(uint32(len(objs))); err != nil {
		_ = tmp.Close()
		return err
	}
	var eh []byte
	for i, o := range objs {
		eh = entryHeader(eh[:0], o.t, len(o.data))
		crc := crc32.NewIEEE()
		crc.Write(eh)
		crc.Write(compressed[i])
		idx.Add(o.h, uint64(pos), crc.Sum32())
		write(eh)
		write(compressed[i])
		compressed[i] = nil
	}
	var packHash plumbing.Hash
	copy(packHash[:], sum.Sum(nil))
	_, _ = bw.Write(packHash[:]) // its error is Flush's
	if err := bw.Flush(); err != nil {
		_ = tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := idx.OnFooter(packHash); err != nil {
		return err
	}
	mi, err := idx.Index()
	if err != nil {
		return err
	}
	base := filepath.Join(packDir, "pack-"+packHash.String())
	f, err := os.Create(base + ".idx")
	if err != nil {
		return err
	}
	ibw := bufio.NewWriter(f)
	if _, err := idxfile.NewEncoder(ibw).Encode(mi); err != nil {
		_ = f.Close()
		return fmt.Errorf("synth: writing pack index: %w", err)
	}
	if err := ibw.Flush(); err != nil {
		_ = f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), base+".pack")
}

// entryHeader appends a pack entry header: type and inflated size, 7 bits a byte.
func entryHeader(b []byte, t plumbing.ObjectType, size int) []byte {
	c := byte(t)<<4 | byte(size&0x0f)
	size >>= 4
	for size > 0 {
		b = append(b, c|0x80)
		c = byte(size & 0x7f)
		size >>= 7
	}
	return append(b, c)
}
