//go:build linux

package gitrepo

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
)

// residentKB is how much of the mapped files named like suffix is in this process's
// resident set (/proc/self/smaps).
func residentKB(t *testing.T, suffix string) int {
	t.Helper()
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skip("no /proc/self/smaps:", err)
	}
	defer f.Close()
	kb, in := 0, false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 5 && strings.Contains(fields[0], "-") && !strings.HasSuffix(fields[0], ":") {
			in = len(fields) >= 6 && strings.HasSuffix(fields[5], suffix)
			continue
		}
		if in && len(fields) >= 2 && fields[0] == "Rss:" {
			n, _ := strconv.Atoi(fields[1])
			kb += n
		}
	}
	return kb
}

// DropMappedPages takes the packs' pages out of the resident set, and objects read
// while and after it runs are the same bytes.
func TestDropMappedPages(t *testing.T) {
	dir := deltaRepo(t)
	gitDir := filepath.Join(dir, ".git")
	hashes := objectHashes(t, gitDir)
	ps := newPacks(filepath.Join(gitDir, "objects"), 1<<20)
	defer ps.close()
	read := func() map[plumbing.Hash][]byte {
		out := map[plumbing.Hash][]byte{}
		for _, h := range hashes {
			o, err := ps.object(plumbing.AnyObject, h)
			if err != nil {
				continue // loose, or not in these packs
			}
			r, err := o.Reader()
			if err != nil {
				t.Fatal(err)
			}
			b, err := io.ReadAll(r)
			r.Close()
			if err != nil {
				t.Fatal(err)
			}
			out[h] = b
		}
		return out
	}
	want := read()
	if len(want) < 300 {
		t.Fatalf("only %d objects read from the packs", len(want))
	}
	before := residentKB(t, ".pack")
	if before == 0 {
		t.Fatal("no page of the packs resident after reading every object")
	}
	DropMappedPages()
	if after := residentKB(t, ".pack"); after >= before {
		t.Errorf("packs' resident set %d KB after DropMappedPages, %d KB before; want less", after, before)
	}
	var wg sync.WaitGroup
	for range 3 {
		wg.Go(func() {
			for h, b := range read() {
				if !bytes.Equal(b, want[h]) {
					t.Errorf("object %s read differently after its pages were dropped", h)
				}
			}
		})
	}
	for range 20 {
		DropMappedPages()
	}
	wg.Wait()
}
