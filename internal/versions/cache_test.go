package versions

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unsafe"

	"github.com/go-git/go-git/v5/plumbing"
)

// cacheFixture is a repository of three commits and a cache of its main branch,
// logging into a buffer.
type cacheFixture struct {
	r          *testRepo
	c1, c2, c3 plumbing.Hash
	cache      *Cache
	log        *bytes.Buffer
}

func newCacheFixture(t *testing.T) *cacheFixture {
	t.Helper()
	r := newTestRepo(t)
	f := &cacheFixture{r: r, log: &bytes.Buffer{}}
	f.c1 = r.commit(subjectFiles(nil, "a/one", "a.one-value", avsc("x")))
	f.c2 = r.commit(subjectFiles(subjectFiles(nil, "a/one", "a.one-value", avsc("x", "y")), "b/two", "b.two-value", avsc("p")), f.c1)
	f.c3 = r.commit(subjectFiles(subjectFiles(nil, "a/one", "a.one-value", avsc("x", "y", "z")), "b/two", "b.two-value", avsc("p")), f.c2)
	f.cache = &Cache{Dir: t.TempDir(), Repo: t.TempDir(), Branch: "refs/heads/main", Log: slog.New(slog.NewTextHandler(f.log, nil))}
	return f
}

// index runs Cache.Index to head and checks the result against a fresh Build.
func (f *cacheFixture) index(t *testing.T, head plumbing.Hash, wantRestored bool) {
	t.Helper()
	ix, restored, err := f.cache.Index(f.r.repo, head)
	if err != nil {
		t.Fatal(err)
	}
	if restored != wantRestored {
		t.Fatalf("restored = %v, want %v; log:\n%s", restored, wantRestored, f.log)
	}
	if got, want := indexJSON(t, ix), indexJSON(t, build(t, f.r, head)); got != want {
		t.Fatalf("index from the cache differs from Build:\n%s\nwant\n%s", got, want)
	}
}

// write puts ix in the cache file as a file of layout format, with a valid checksum.
func (f *cacheFixture) write(t *testing.T, format int, ix *Index) {
	t.Helper()
	data, err := encodeCache(cacheHeader{Format: format, Repo: f.cache.absRepo(), Branch: f.cache.Branch, Head: ix.Head}, ix)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, f.cache.Path(), data)
}

func indexJSON(t *testing.T, ix *Index) string {
	t.Helper()
	b, err := json.Marshal(ix)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestCacheRestoresAndExtends(t *testing.T) {
	f := newCacheFixture(t)
	f.index(t, f.c1, false) // nothing cached: built and saved
	f.index(t, f.c1, true)  // the same head: restored as is
	f.index(t, f.c3, true)  // two commits later: restored and extended, then saved
	ix, err := f.cache.Load(f.r.repo, f.c3)
	if err != nil || ix == nil || ix.Head != f.c3.String() {
		t.Fatalf("after the extension the cache holds %v (err %v), want the index at c3", ix, err)
	}
	if strings.Contains(f.log.String(), "level=WARN") {
		t.Fatalf("warnings on a good cache:\n%s", f.log)
	}
	// no temporary files left behind
	if es, _ := os.ReadDir(f.cache.Dir); len(es) != 1 {
		t.Fatalf("cache folder holds %d files, want 1", len(es))
	}
}

func TestCacheIgnoresWhatItCannotTrust(t *testing.T) {
	for _, tc := range []struct {
		name string
		// spoil changes the cache file (saved at c2) or the fixture before Index(c3).
		spoil func(t *testing.T, f *cacheFixture)
		want  string // in the log line
	}{
		{"corrupt byte", func(t *testing.T, f *cacheFixture) {
			data := readFile(t, f.cache.Path())
			data[len(data)/2] ^= 0xff
			writeFile(t, f.cache.Path(), data)
		}, "checksum does not match"},
		{"truncated", func(t *testing.T, f *cacheFixture) {
			data := readFile(t, f.cache.Path())
			writeFile(t, f.cache.Path(), data[:len(data)/3])
		}, "checksum does not match"},
		{"not a cache file", func(t *testing.T, f *cacheFixture) {
			writeFile(t, f.cache.Path(), []byte(`{"head":"x"}`))
		}, "not a versions cache"},
		{"layout 1 (ids of forms alone, versions without references)", func(t *testing.T, f *cacheFixture) {
			f.write(t, 1, build(t, f.r, f.c2))
		}, "has layout 1"},
		{"a version whose references are not its id's", func(t *testing.T, f *cacheFixture) {
			ix := build(t, f.r, f.c2)
			v := &ix.BySubject["a.one-value"].Versions[0]
			v.References = []Reference{{Name: "b/two/b.avsc", Subject: "b.two-value", Version: 1}}
			f.write(t, CacheFormat, ix)
		}, "references are not its own"},
		{"another repository's file", func(t *testing.T, f *cacheFixture) {
			other := &Cache{Dir: f.cache.Dir, Repo: t.TempDir(), Branch: f.cache.Branch}
			if err := other.Save(build(t, f.r, f.c2)); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(other.Path(), f.cache.Path()); err != nil {
				t.Fatal(err)
			}
		}, "the cache file is of"},
		{"inconsistent index", func(t *testing.T, f *cacheFixture) {
			ix := build(t, f.r, f.c2)
			ix.Schemas[0].ID = 7
			f.write(t, CacheFormat, ix)
		}, "inconsistent"},
		{"head not in the repository", func(t *testing.T, f *cacheFixture) {
			ix := build(t, f.r, f.c2)
			ix.Head = strings.Repeat("ab", 20)
			f.write(t, CacheFormat, ix)
		}, "is not a commit of this repository"},
		{"history rewritten", func(t *testing.T, f *cacheFixture) {
			// the cache holds an index of a commit that c3 does not descend from
			side := f.r.commit(subjectFiles(nil, "a/one", "a.one-value", avsc("x", "q")), f.c1)
			if err := f.cache.Save(build(t, f.r, side)); err != nil {
				t.Fatal(err)
			}
		}, "history rewritten"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newCacheFixture(t)
			if err := f.cache.Save(build(t, f.r, f.c2)); err != nil {
				t.Fatal(err)
			}
			tc.spoil(t, f)
			f.log.Reset()
			f.index(t, f.c3, false)
			if !strings.Contains(f.log.String(), "level=WARN") || !strings.Contains(f.log.String(), tc.want) {
				t.Fatalf("log does not say why the cache was ignored (%q):\n%s", tc.want, f.log)
			}
			// the rebuilt index replaced the bad file
			f.index(t, f.c3, true)
		})
	}
}

func TestCacheOfAnotherBranchIsAnotherFile(t *testing.T) {
	a := &Cache{Dir: "d", Repo: "/r", Branch: "refs/heads/main"}
	b := &Cache{Dir: "d", Repo: "/r", Branch: "refs/heads/other"}
	c := &Cache{Dir: "d", Repo: "/s", Branch: "refs/heads/main"}
	if a.Path() == b.Path() || a.Path() == c.Path() || filepath.Dir(a.Path()) != "d" {
		t.Fatalf("paths %s %s %s", a.Path(), b.Path(), c.Path())
	}
}

func readFile(t *testing.T, p string) []byte {
	t.Helper()
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func writeFile(t *testing.T, p string, data []byte) {
	t.Helper()
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestCacheSharesStrings: the restored index holds each repeated string once (a
// subject's name in its versions, its folder and its ids; a blob in the version and
// its id), not a copy per place gob read it.
func TestCacheSharesStrings(t *testing.T) {
	f := newCacheFixture(t)
	f.index(t, f.c3, false)
	ix, err := f.cache.Load(f.r.repo, f.c3)
	if err != nil || ix == nil {
		t.Fatalf("load: %v, %v", ix, err)
	}
	same := func(what, a, b string) {
		t.Helper()
		if a != b || unsafe.StringData(a) != unsafe.StringData(b) {
			t.Errorf("%s: %q and %q are not one string", what, a, b)
		}
	}
	h := ix.BySubject["a.one-value"]
	v := h.Versions[len(h.Versions)-1]
	same("the version's subject and its folder's", v.Subject, ix.Folders[h.Folder].Subject)
	same("the version's blob and its id's", v.Blob, ix.Schemas[v.ID-1].Blob)
	same("the version's canonical key and its id's", v.Canonical, ix.Schemas[v.ID-1].Canonical)
	uses := ix.Schemas[v.ID-1].Uses
	same("the version's subject and its id's use", v.Subject, uses[len(uses)-1].Subject)
	for subject := range ix.BySubject {
		if subject == v.Subject {
			same("the map's key and the version's subject", subject, v.Subject)
		}
	}
	// Every string is in a block, each once: the fixture's few fit in one, which spans
	// no more than the distinct strings' bytes (strings apart would be scattered over
	// the heap).
	lo, hi, distinct, n := uintptr(0), uintptr(0), map[string]bool{}, 0
	ix.eachString(func(s *string) {
		if *s == "" {
			return
		}
		n++
		start := uintptr(unsafe.Pointer(unsafe.StringData(*s)))
		if lo == 0 || start < lo {
			lo = start
		}
		hi = max(hi, start+uintptr(len(*s)))
		distinct[*s] = true
	})
	size := 0
	for s := range distinct {
		size += len(s)
	}
	if n < 20 || hi-lo != uintptr(size) {
		t.Errorf("%d strings (%d distinct, %d bytes) span %d bytes; want one block of their size", n, len(distinct), size, hi-lo)
	}
	// The structures are laid out in arrays too (compact): the subjects' versions
	// one after another, each slice's capacity its length (an append copies it).
	var prev *Version
	apart := 0
	for _, h := range ix.BySubject {
		if cap(h.Versions) != len(h.Versions) {
			t.Errorf("%s: versions of capacity %d, length %d", h.Versions[0].Subject, cap(h.Versions), len(h.Versions))
		}
		if len(h.Versions) == 0 {
			continue
		}
		first := &h.Versions[0]
		if prev != nil {
			d := uintptr(unsafe.Pointer(first)) - uintptr(unsafe.Pointer(prev))
			if uintptr(unsafe.Pointer(first)) < uintptr(unsafe.Pointer(prev)) {
				d = -d
			}
			if d > 64*unsafe.Sizeof(Version{}) {
				apart++
			}
		}
		prev = first
	}
	if apart > 0 {
		t.Errorf("%d subjects' versions are far from the subject's before them; want one array", apart)
	}
}
