package gitrepo

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/contractbot/contractbot/internal/atomicfile"
)

// Comparing a working tree by stat data costs the lstat of every file and the listing
// of every folder: at 100,000 subjects 400,000 files and 200,000 folders, as for `git
// status`. Git's answer for large working trees is a file system monitor, and
// WorktreeDiff asks the same one Git asks: the hook that core.fsmonitor names in the
// repository's config (protocol version 2, as Git's Watchman sample speaks it). The hook
// is run as `HOOK 2 TOKEN` in the working tree's root and prints a new token, a NUL,
// then the NUL-separated paths that changed since TOKEN; "dir/" means everything
// under dir, "/" everything.
//
// Git keeps its token in the index; WorktreeDiff never writes the index, so it keeps
// a baseline of its own (Repo.FSMonitorBaseline): the token it got before a full
// scan, the sum of the index's entries (their stat data too, not the extensions Git
// rewrites alone), and what that scan found that depends on the working
// tree (the files whose content differs from the index, and what the folder listings
// added: files and folders the index does not track, links or files where it has a
// folder). At the next call, when the index's entries are the baseline's and the hook
// answers, only the baseline's differing files and what the hook reports are looked
// at again; the rest of the working tree is as it was at the baseline. The token is
// asked for before the scan that makes a baseline, so a change made during the scan is
// reported the next time. Anything else (no baseline, or another working tree's, or a
// damaged one; the index changed; the hook failed, timed out, or answered "/" or
// something unusable) is a full scan, and a new baseline when the hook gave a token.

// hookTimeout bounds one run of the hook (a variable: tests shorten it). Watchman's
// first answer in a large tree lists every file; later ones take milliseconds.
var hookTimeout = 30 * time.Second

// maxHookAnswer bounds what is read of the hook's answer; a longer one is unusable.
const maxHookAnswer = 256 << 20

// monitorHook returns the command core.fsmonitor names in the repository's own config
// ("" when none: unset, or a boolean, where true asks for Git's built-in daemon,
// which Git on Linux does not have and this does not talk to; or when
// core.fsmonitorHookVersion names a version other than 2).
func (r *Repo) monitorHook() string {
	cfg, err := r.Config()
	if err != nil {
		return ""
	}
	core := cfg.Raw.Section("core")
	hook := strings.TrimSpace(core.Option("fsmonitor"))
	if hook == "" || configBool(hook) {
		return ""
	}
	if v := strings.TrimSpace(core.Option("fsmonitorHookVersion")); v != "" && v != "2" {
		return ""
	}
	return hook
}

// configBool reports whether a config value is one Git reads as a boolean.
func configBool(v string) bool {
	switch strings.ToLower(v) {
	case "true", "false", "yes", "no", "on", "off":
		return true
	}
	_, err := strconv.Atoi(v)
	return err == nil
}

// hookAnswer is what the hook reported.
type hookAnswer struct {
	token string
	all   bool     // "/": anything may have changed
	paths []string // changed paths, files or folders; a folder with "/" (everything under it) too
}

// queryHook runs the hook (a shell command, as Git runs it) in root with the token.
func queryHook(root, hook, token string) (*hookAnswer, error) {
	ctx, cancel := context.WithTimeout(context.Background(), hookTimeout)
	defer cancel()
	var out, stderr boundedBuffer
	out.limit, stderr.limit = maxHookAnswer, 4096
	if err := runHook(ctx, root, hook, token, &out, &stderr); err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("no answer in %v", hookTimeout)
		}
		if msg := strings.TrimSpace(stderr.String()); msg != "" {
			err = fmt.Errorf("%w: %s", err, firstLine(msg))
		}
		return nil, err
	}
	if out.over {
		return nil, fmt.Errorf("an answer over %d bytes", maxHookAnswer)
	}
	return parseAnswer(out.Bytes())
}

// firstLine is s up to its first line break.
func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// boundedBuffer keeps the first limit bytes written to it; over says more came.
type boundedBuffer struct {
	bytes.Buffer
	limit int
	over  bool
}

func (b *boundedBuffer) Write(p []byte) (int, error) {
	if room := b.limit - b.Len(); len(p) > room {
		b.over = true
		b.Buffer.Write(p[:max(room, 0)])
		return len(p), nil
	}
	return b.Buffer.Write(p)
}

// parseAnswer reads a protocol version 2 answer: the token, a NUL, then paths, each
// ended or separated by a NUL, relative to the working tree's root.
func parseAnswer(out []byte) (*hookAnswer, error) {
	token, rest, ok := bytes.Cut(out, []byte{0})
	if !ok || len(token) == 0 || len(token) > 4096 {
		return nil, errors.New("an answer with no token (not protocol version 2)")
	}
	a := &hookAnswer{token: string(token)}
	for p := range bytes.SplitSeq(rest, []byte{0}) {
		switch {
		case len(p) == 0:
		case string(p) == "/":
			a.all = true
		case !cleanPath(strings.TrimSuffix(string(p), "/")):
			return nil, fmt.Errorf("an unusable path %q in its answer", p)
		default:
			a.paths = append(a.paths, strings.TrimSuffix(string(p), "/"))
		}
	}
	return a, nil
}

// cleanPath reports whether p is a slash-separated path relative to the working tree's
// root with no empty, "." or ".." part.
func cleanPath(p string) bool {
	for part := range strings.SplitSeq(p, "/") {
		if part == "" || part == "." || part == ".." {
			return false
		}
	}
	return true
}

// baselineHeader starts a baseline file; a file that starts otherwise is ignored.
const baselineHeader = "contractbot fsmonitor-baseline 2\n"

// maxBaselineFile bounds the baseline file read.
const maxBaselineFile = 256 << 20

// baseline is what a full scan (or a later call built on one) found that depends on
// the working tree, with the hook's token asked for before it and the index's
// entries' sum then.
type baseline struct {
	token   string
	index   plumbing.Hash // the sum of the index's entries
	trailer plumbing.Hash // the index file's trailing checksum
	stale   []string      // files whose content or kind differs from the index's entry
	paths   []string      // Paths the folder listings added
	dirs    []string      // Dirs the folder listings added
}

// readBaseline reads the baseline file of the working tree at root; nil when it is
// missing, damaged or another working tree's.
func readBaseline(file, root string) *baseline {
	data, err := readBounded(file, maxBaselineFile)
	if err != nil || len(data) < len(baselineHeader)+4 || !bytes.HasPrefix(data, []byte(baselineHeader)) {
		return nil
	}
	body, sum := data[:len(data)-4], binary.LittleEndian.Uint32(data[len(data)-4:])
	if crc32.Checksum(body, castagnoli) != sum {
		return nil
	}
	d := decoder{b: body[len(baselineHeader):]}
	if string(d.bytes(d.uvarint())) != root {
		return nil
	}
	b := &baseline{token: string(d.bytes(d.uvarint()))}
	copy(b.index[:], d.bytes(uint64(len(b.index))))
	copy(b.trailer[:], d.bytes(uint64(len(b.trailer))))
	for _, list := range []*[]string{&b.stale, &b.paths, &b.dirs} {
		n := d.uvarint()
		if n > uint64(len(d.b)) {
			return nil
		}
		*list = make([]string, 0, n)
		for range n {
			*list = append(*list, string(d.bytes(d.uvarint())))
		}
	}
	if d.bad || len(d.b) != 0 || b.token == "" {
		return nil
	}
	return b
}

// encode lays out the baseline file: the header, the working tree's path, the token,
// the sum of the index's entries and its file's checksum, the three lists, and a CRC-32C of all that.
func (b *baseline) encode(root string) []byte {
	out := []byte(baselineHeader)
	str := func(s string) {
		out = binary.AppendUvarint(out, uint64(len(s)))
		out = append(out, s...)
	}
	str(root)
	str(b.token)
	out = append(out, b.index[:]...)
	out = append(out, b.trailer[:]...)
	for _, list := range [][]string{b.stale, b.paths, b.dirs} {
		out = binary.AppendUvarint(out, uint64(len(list)))
		for _, s := range list {
			str(s)
		}
	}
	return binary.LittleEndian.AppendUint32(out, crc32.Checksum(out, castagnoli))
}

// monitorRun is one WorktreeDiff's use of the hook.
type monitorRun struct {
	hook, file, root string
	old              *baseline   // the baseline file's (nil: none, or not usable)
	base             *baseline   // the baseline this call builds on (nil: a full scan)
	answer           *hookAnswer // the hook's answer since base's token
	token            string      // the token the next baseline is made with ("": none made)
	index, trailer   plumbing.Hash
	reason           string // WorktreeDiff.Monitor
}

// openMonitor reads the baseline when core.fsmonitor names a hook and r keeps one;
// nil when there is no hook.
func (r *Repo) openMonitor() *monitorRun {
	if r.FSMonitorBaseline == "" {
		return nil
	}
	hook := r.monitorHook()
	if hook == "" {
		return nil
	}
	return &monitorRun{hook: hook, file: r.FSMonitorBaseline, root: r.Root, old: readBaseline(r.FSMonitorBaseline, r.Root)}
}

// known are the sums of the index file the baseline was made with: when the file's
// trailing checksum is still that one, it is that file (checked when the baseline was
// made), and its entries need not be hashed again.
func (m *monitorRun) known() indexSums {
	if m == nil || m.old == nil {
		return indexSums{}
	}
	return indexSums{trailer: m.old.trailer, entries: m.old.index}
}

// start asks the hook what changed since the baseline's token (or, with no baseline,
// only for a token), before anything of the working tree is read, and says whether
// this call builds on the baseline.
func (m *monitorRun) start(idx *indexFile, entries int) {
	if m == nil {
		return
	}
	base := m.old
	// With no token of its own, Git's first query passes the time: any token the
	// hook does not know gets an answer that lists everything, and a token to keep.
	token := strconv.FormatInt(time.Now().UnixNano(), 10)
	if base != nil {
		token = base.token
	}
	answer, err := queryHook(m.root, m.hook, token)
	switch {
	case err != nil:
		m.reason = "full scan: the hook failed: " + err.Error()
		return
	case !idx.summed:
		m.reason = "full scan: an index read by go-git, with no sum kept"
		return
	case base == nil:
		m.reason = "full scan: no baseline"
	case base.index != idx.sum:
		m.reason = "full scan: the index changed"
	case answer.all:
		m.reason = "full scan: the hook answered everything"
	case len(answer.paths) > max(entries/2, 1000):
		m.reason = fmt.Sprintf("full scan: the hook answered %d paths", len(answer.paths))
	default:
		m.base, m.answer, m.reason = base, answer, "incremental"
	}
	m.token, m.index, m.trailer = answer.token, idx.sum, idx.trailer
}

// save writes the next baseline: the token asked for before this call looked at the
// working tree, and what it found. A failure leaves the old file: the next call
// builds on it, or scans.
func (m *monitorRun) save(w *worktreeDiffer) {
	if m == nil || m.token == "" {
		return
	}
	b := &baseline{token: m.token, index: m.index, trailer: m.trailer, stale: slices.Sorted(maps.Keys(w.stale)), paths: slices.Sorted(maps.Keys(w.wpaths)), dirs: slices.Sorted(maps.Keys(w.wdirs))}
	_ = atomicfile.Write(m.file, b.encode(m.root))
}

// examine builds on a baseline: the baseline's differing files are compared again,
// and so is every file the hook reported, and every file under a folder it reported;
// the folders that hold a path the baseline's listings found or the hook reported
// are listed again (not their tracked folders), and a reported folder the index
// tracks is listed with every folder below it. What the baseline's listings found in
// the other folders stands. entries are the index's, in path order.
func (w *worktreeDiffer) examine(entries []indexEntry, base *baseline, answer *hookAnswer) error {
	t := sortedEntries(entries)
	compare := map[string]*indexEntry{}
	shallow, deep := map[string]bool{}, map[string]bool{}
	for _, p := range base.stale {
		if e, ok := t.entry(p); ok {
			compare[p] = e
		}
	}
	for _, p := range answer.paths {
		if e, ok := t.entry(p); ok {
			compare[p] = e
		}
		shallow[t.owner(p)] = true
		if under := t.under(p); len(under) > 0 { // a folder the index tracks
			deep[p] = true
			for i := range under {
				compare[under[i].Name] = &under[i]
			}
		}
	}
	for _, list := range [][]string{base.paths, base.dirs} {
		for _, p := range list {
			shallow[t.owner(p)] = true
		}
	}
	for _, e := range compare {
		w.stat(e)
	}
	// listedAgain says whether what the listing of dir found is found again now.
	listedAgain := func(dir string) bool {
		if shallow[dir] {
			return true
		}
		for d := dir; ; d = parent(d) {
			if deep[d] {
				return true
			}
			if d == "" {
				return false
			}
		}
	}
	for _, kept := range []struct {
		from []string
		to   map[string]bool
	}{{base.paths, w.wpaths}, {base.dirs, w.wdirs}} {
		for _, p := range kept.from {
			if !listedAgain(t.owner(p)) {
				kept.to[p] = true
			}
		}
	}
	for _, again := range []struct {
		dirs map[string]bool
		deep bool
	}{{shallow, false}, {deep, true}} {
		for _, dir := range slices.Sorted(maps.Keys(again.dirs)) {
			if w.reached(dir) {
				if err := w.walk(dir, t.under(dir), again.deep); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// reached reports whether a full scan lists the tracked folder dir: whether it and
// every folder above it are folders of the working tree, not links to one.
func (w *worktreeDiffer) reached(dir string) bool {
	for d := dir; d != ""; d = parent(d) {
		fi, err := os.Lstat(w.abs(d))
		if err != nil || !fi.IsDir() {
			return false
		}
	}
	return true
}

// parent is the folder of the slash-separated path p ("" for the root's).
func parent(p string) string {
	i := strings.LastIndexByte(p, '/')
	if i < 0 {
		return ""
	}
	return p[:i]
}

// sortedEntries are an index's entries in path order, searched by name.
type sortedEntries []indexEntry

// entry is the entry named p.
func (s sortedEntries) entry(p string) (*indexEntry, bool) {
	i, ok := slices.BinarySearchFunc(s, p, func(e indexEntry, p string) int { return strings.Compare(e.Name, p) })
	if !ok {
		return nil, false
	}
	return &s[i], true
}

// under are the entries under the folder dir (all of them for the root): those
// between dir+"/" and dir+"0", '0' being the byte after '/'.
func (s sortedEntries) under(dir string) []indexEntry {
	if dir == "" {
		return s
	}
	at := func(p string) int {
		i, _ := slices.BinarySearchFunc(s, p, func(e indexEntry, p string) int { return strings.Compare(e.Name, p) })
		return i
	}
	return s[at(dir+"/"):at(dir+"0")]
}

// owner is the folder whose listing finds p when the working tree has it: the
// nearest folder above p that the index tracks (the root at least). Below it,
// everything is untracked and found by that folder's listing.
func (s sortedEntries) owner(p string) string {
	d := parent(p)
	for d != "" && len(s.under(d)) == 0 {
		d = parent(d)
	}
	return d
}
