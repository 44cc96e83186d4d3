package gitrepo

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/storage/filesystem"
)

// deltaRepo returns a copy, for the test to change, of a repository made once per
// run of the tests by makeDeltaRepo.
func deltaRepo(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git command")
	}
	deltaOnce.Do(func() {
		if deltaDir, deltaErr = os.MkdirTemp("", "deltarepo"); deltaErr == nil {
			makeDeltaRepo(t, deltaDir)
		}
	})
	if deltaErr != nil {
		t.Fatal(deltaErr)
	}
	if _, err := os.Stat(filepath.Join(deltaDir, ".git", "HEAD")); err != nil {
		t.Fatal("the repository with deltas was not made")
	}
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(deltaDir)); err != nil {
		t.Fatal(err)
	}
	return dir
}

var (
	deltaOnce sync.Once
	deltaDir  string
	deltaErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if deltaDir != "" {
		_ = os.RemoveAll(deltaDir)
	}
	os.Exit(code)
}

// makeDeltaRepo makes in dir a repository whose packs hold deltas of deltas: files
// edited over 30 commits, two of them over LargeObject, packed by `git gc --aggressive`
// (chains up to git's depth of 50), then more commits packed into a second pack and
// some left loose.
func makeDeltaRepo(t *testing.T, dir string) {
	t.Helper()
	gitCmd(t, dir, "init", "-q", "-b", "main")
	rng := rand.New(rand.NewPCG(1, 2))
	words := strings.Fields("id name type record fields default null string long int avro proto json subject domain owner")
	text := func(n int) []byte {
		var b bytes.Buffer
		for b.Len() < n {
			b.WriteString(words[rng.IntN(len(words))])
			b.WriteByte(" \n"[rng.IntN(2)])
		}
		return b.Bytes()
	}
	files := map[string][]byte{"big.txt": text(LargeObject + 300_000), "big2.bin": text(LargeObject * 3 / 2)}
	for i := range 12 {
		files[fmt.Sprintf("d%d/f%02d.txt", i%3, i)] = text(2000 + 500*i)
	}
	commit := func(c int) {
		for name, data := range files {
			if strings.HasPrefix(name, "big") && c%5 != 0 {
				continue
			}
			// An edit: a line inserted.
			at := rng.IntN(len(data))
			data = append(data[:at:at], append([]byte(fmt.Sprintf("\nedit %d of %s\n", c, name)), data[at:]...)...)
			files[name] = data
			if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		gitCmd(t, dir, "add", "-A")
		gitCmd(t, dir, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", fmt.Sprintf("commit %d", c))
	}
	for c := range 30 {
		commit(c)
	}
	gitCmd(t, dir, "gc", "-q", "--aggressive")
	for c := 30; c < 34; c++ {
		commit(c)
	}
	gitCmd(t, dir, "repack", "-q", "-d") // a second pack, of the new objects only
	commit(34)                           // loose
}

// allObjects lists every object of the repository with git: hash, type, size.
func allObjects(t *testing.T, gitDir string) []string {
	t.Helper()
	out, err := exec.Command("git", "--git-dir", gitDir, "cat-file", "--batch-all-objects", "--batch-check").Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSpace(string(out)), "\n")
}

// objectHashes is the hash of every object of the repository, as git lists them.
func objectHashes(t *testing.T, gitDir string) []plumbing.Hash {
	t.Helper()
	var hashes []plumbing.Hash
	for _, line := range allObjects(t, gitDir) {
		hashes = append(hashes, plumbing.NewHash(strings.Fields(line)[0]))
	}
	return hashes
}

// sameAsGoGit reads every object of a repository from its packs and compares each
// with go-git's read, byte for byte, and with git's type and size. It returns how
// many objects were in the packs.
func sameAsGoGit(t *testing.T, gitDir string) int {
	t.Helper()
	ps := newPacks(filepath.Join(commonDir(gitDir), "objects"), 32<<20)
	defer ps.close()
	gg := filesystem.NewStorage(osfs.New(commonDir(gitDir)), cache.NewObjectLRUDefault())
	packed := 0
	for _, line := range allObjects(t, gitDir) {
		f := strings.Fields(line)
		h := plumbing.NewHash(f[0])
		o, err := ps.object(plumbing.AnyObject, h)
		if errors.Is(err, errNotInPacks) {
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", h, err)
		}
		packed++
		if o.Type().String() != f[1] || fmt.Sprint(o.Size()) != f[2] || o.Hash() != h {
			t.Fatalf("%s: %s %d, git says %s %s", h, o.Type(), o.Size(), f[1], f[2])
		}
		if n, err := ps.size(h); err != nil || n != o.Size() {
			t.Fatalf("%s: size %d, %v; the object's %d", h, n, err, o.Size())
		}
		if !ps.has(h) {
			t.Fatalf("%s: not had", h)
		}
		want, err := gg.EncodedObject(plumbing.AnyObject, h)
		if err != nil {
			t.Fatal(err)
		}
		if got, exp := content(t, o), content(t, want); !bytes.Equal(got, exp) {
			t.Fatalf("%s: %d bytes, go-git reads %d", h, len(got), len(exp))
		}
		if _, err := ps.object(otherType(o.Type()), h); !errors.Is(err, plumbing.ErrObjectNotFound) {
			t.Fatalf("%s asked as another type: %v", h, err)
		}
	}
	return packed
}

func otherType(t plumbing.ObjectType) plumbing.ObjectType {
	if t == plumbing.BlobObject {
		return plumbing.TreeObject
	}
	return plumbing.BlobObject
}

func content(t *testing.T, o plumbing.EncodedObject) []byte {
	t.Helper()
	r, err := o.Reader()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestPacksReadAsGoGit(t *testing.T) {
	dir := deltaRepo(t)
	gitDir := filepath.Join(dir, ".git")
	if n := sameAsGoGit(t, gitDir); n < 300 {
		t.Fatalf("only %d objects packed", n)
	}
	// Deltas of deltas (git verify-pack counts the chains).
	var out []byte
	for _, p := range packsOf(t, gitDir) {
		o, err := exec.Command("git", "--git-dir", gitDir, "verify-pack", "-v", p+".idx").Output()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, o...)
	}
	if !strings.Contains(string(out), "chain length = 5:") {
		t.Fatalf("no chain of 5 deltas:\n%s", out[max(0, len(out)-800):])
	}
}

// TestPacksReadSixtyFourBitOffsets indexes the packs again with every offset in the
// idx's table of 64-bit offsets (git's test option for it).
func TestPacksReadSixtyFourBitOffsets(t *testing.T) {
	dir := deltaRepo(t)
	gitDir := filepath.Join(dir, ".git")
	for _, p := range packsOf(t, gitDir) {
		gitCmd(t, dir, "index-pack", "--index-version=2,0", "-o", p+".idx64", p+".pack")
		if err := os.Rename(p+".idx64", p+".idx"); err != nil {
			t.Fatal(err)
		}
	}
	ps := newPacks(filepath.Join(gitDir, "objects"), 32<<20)
	defer ps.close()
	for _, p := range ps.packList() {
		if v := binary.BigEndian.Uint32(p.idx[idxHeader+fanoutSize+24*p.n:]); v&0x80000000 == 0 {
			t.Fatalf("%s: a 31-bit offset", p.name)
		}
	}
	sameAsGoGit(t, gitDir)
}

// TestPacksReadThisRepository compares every packed object of the repository this
// test runs in, and of the repositories named in CONTRACTBOT_PACK_REPOS (a list of
// git folders: a generated repository of 100,000 subjects, for one).
func TestPacksReadThisRepository(t *testing.T) {
	if testing.Short() {
		t.Skip("reads every object of a whole repository")
	}
	out, err := exec.Command("git", "rev-parse", "--absolute-git-dir").Output()
	if err != nil {
		t.Skip("not inside a git repository")
	}
	dirs := append([]string{strings.TrimSpace(string(out))}, filepath.SplitList(os.Getenv("CONTRACTBOT_PACK_REPOS"))...)
	for _, d := range dirs {
		t.Logf("%s: %d packed objects read as go-git reads them", d, sameAsGoGit(t, d))
	}
}

func packsOf(t *testing.T, gitDir string) []string {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(gitDir, "objects", "pack", "*.idx"))
	if err != nil || len(names) == 0 {
		t.Fatalf("no packs: %v", err)
	}
	for i := range names {
		names[i] = strings.TrimSuffix(names[i], ".idx")
	}
	return names
}

func TestPacksReadConcurrently(t *testing.T) {
	dir := deltaRepo(t)
	gitDir := filepath.Join(dir, ".git")
	hashes := objectHashes(t, gitDir)
	ps := newPacks(filepath.Join(gitDir, "objects"), 1<<20) // a small cache: evictions
	defer ps.close()
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for g := range 4 {
		wg.Go(func() {
			for i := range hashes {
				h := hashes[(i+g*37)%len(hashes)]
				o, err := ps.object(plumbing.AnyObject, h)
				if errors.Is(err, errNotInPacks) {
					continue
				}
				if err == nil {
					var r io.ReadCloser
					if r, err = o.Reader(); err == nil {
						_, err = io.Copy(io.Discard, r)
						r.Close()
					}
				}
				if err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// hostilePack is a pack made of the given bytes as its entries, with an idx of no
// objects (so a REF_DELTA finds no base).
func hostilePack(entries []byte) *packFile {
	data := append([]byte("PACK\x00\x00\x00\x02\x00\x00\x00\x00"), entries...)
	data = append(data, make([]byte, 20)...)
	return &packFile{name: "hostile", data: data, idx: make([]byte, idxHeader+fanoutSize+40), unmap: func() error { return nil }}
}

// FuzzPackEntry reads hostile bytes as the entries of a pack: each offset is parsed,
// sized and resolved. Any outcome but a panic (or an allocation the bytes cannot
// back, which would fail the fuzzer on memory) is right.
func FuzzPackEntry(f *testing.F) {
	f.Add([]byte{0x33, 0x78, 0x9c, 0x4b, 0x4c, 0x4a, 0x06, 0x00, 0x02, 0x4d, 0x01, 0x27})                   // blob "abc"
	f.Add([]byte{0x33, 0x78, 0x9c, 0x4b, 0x4c, 0x4a, 0x06, 0x00, 0x02, 0x4d, 0x01, 0x27, 0x6f, 0x0c, 0x78}) // and an OFS_DELTA
	f.Add([]byte{0xbf, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f, 0x78, 0x9c})                         // a huge size
	f.Add([]byte{0x7f, 0x01})
	f.Fuzz(func(t *testing.T, entries []byte) {
		p := hostilePack(entries)
		ps := &packs{bases: newBaseCache(1 << 20)}
		ps.list, ps.loaded = []*packFile{p}, true
		for off := int64(12); off < int64(12+len(entries)); off++ {
			e, err := p.entry(off)
			if err != nil {
				continue
			}
			if e.isDelta() {
				p.deltaTargetSize(e)
			}
			ps.baseType(p, e)
			if _, data, err := ps.resolve(p, e); err == nil && !e.isDelta() && int64(len(data)) != e.size {
				t.Fatalf("offset %d: %d bytes for a size of %d", off, len(data), e.size)
			}
		}
	})
}

// FuzzApplyDelta applies hostile deltas: an error or a result of the announced size.
func FuzzApplyDelta(f *testing.F) {
	f.Add([]byte("hello world"), []byte{11, 8, 0x91, 6, 5, 3, 'f', 'o', 'o'})
	f.Add([]byte("abc"), []byte{3, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x80})
	f.Add([]byte(""), []byte{0, 2, 0x80})
	f.Fuzz(func(t *testing.T, base, delta []byte) {
		out, err := applyDelta(base, delta, 1<<20)
		if err != nil {
			return
		}
		_, rest, _ := deltaSize(delta)
		want, _, _ := deltaSize(rest)
		if int64(len(out)) != want {
			t.Fatalf("%d bytes, announced %d", len(out), want)
		}
	})
}

func TestApplyDelta(t *testing.T) {
	base := []byte("hello world")
	// Copy "world" (offset 6, 5 bytes), insert " foo", copy "hello".
	delta := []byte{11, 14, 0x91, 6, 5, 4, ' ', 'f', 'o', 'o', 0x90, 5}
	out, err := applyDelta(base, delta, 100)
	if err != nil || string(out) != "world foohello" {
		t.Fatalf("%q, %v", out, err)
	}
	for name, d := range map[string][]byte{
		"wrong base size":    {10, 5, 0x90, 5},
		"copy past the base": {11, 5, 0x91, 8, 5},
		"more than says":     {11, 4, 0x90, 5},
		"less than says":     {11, 6, 0x90, 5},
		"over the limit":     {11, 0xe5, 0x07, 0x90, 5},
		"truncated insert":   {11, 5, 5, 'a'},
		"reserved 0":         {11, 0, 0},
	} {
		if _, err := applyDelta(base, d, 100); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// A pack written by another process (git fetch, git gc) after the packs were listed
// is found: a miss looks at the pack folder again when it changed.
func TestPacksSeeAnotherProcessesPack(t *testing.T) {
	dir := t.TempDir()
	gitCmd(t, dir, "init", "-q")
	commit := func(name string) plumbing.Hash {
		writeFile(t, filepath.Join(dir, name), name+"\n")
		gitCmd(t, dir, "add", ".")
		gitCmd(t, dir, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", name)
		out, err := exec.Command("git", "-C", dir, "rev-parse", "HEAD").Output()
		if err != nil {
			t.Fatal(err)
		}
		return plumbing.NewHash(strings.TrimSpace(string(out)))
	}
	first := commit("a.yaml")
	gitCmd(t, dir, "repack", "-a", "-d", "-q")
	ps := newPacks(filepath.Join(dir, ".git", "objects"), 1<<20)
	defer ps.close()
	if _, err := ps.object(plumbing.AnyObject, first); err != nil {
		t.Fatalf("the first commit, packed: %v", err)
	}
	second := commit("b.yaml")
	if _, err := ps.object(plumbing.AnyObject, second); !errors.Is(err, errNotInPacks) {
		t.Fatalf("a loose commit: %v, want errNotInPacks", err)
	}
	// Another file in the pack folder changes its time: a miss lists the packs again
	// and keeps the one still there, not mapping it twice.
	mapped := ps.packList()
	if err := os.WriteFile(filepath.Join(dir, ".git", "objects", "pack", "tmp_pack_x"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ps.object(plumbing.AnyObject, second); !errors.Is(err, errNotInPacks) {
		t.Fatalf("a loose commit: %v, want errNotInPacks", err)
	}
	if again := ps.packList(); len(again) != 1 || again[0] != mapped[0] || len(ps.retired) != 0 {
		t.Errorf("listed again: %d packs, the same one %v, %d retired; want the one pack kept", len(again), len(again) == 1 && again[0] == mapped[0], len(ps.retired))
	}
	gitCmd(t, dir, "repack", "-a", "-d", "-q") // one new pack of both; the old one removed
	for _, h := range []plumbing.Hash{second, first} {
		o, err := ps.object(plumbing.AnyObject, h)
		if err != nil {
			t.Fatalf("commit %s after another process repacked: %v", h, err)
		}
		if o.Type() != plumbing.CommitObject {
			t.Errorf("commit %s read as a %s", h, o.Type())
		}
	}
}
