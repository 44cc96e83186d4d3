package gitrepo

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
)

// fakeHook is a core.fsmonitor hook written by a test: it records its arguments and
// prints what the test last said, or fails, or sleeps.
type fakeHook struct {
	t   *testing.T
	dir string
}

const fakeHookScript = `#!/bin/sh
dir=$(dirname "$0")
printf '%s\n' "$*" >>"$dir/args"
if [ -f "$dir/sleep" ]; then sleep "$(cat "$dir/sleep")"; fi
if [ -f "$dir/fail" ]; then echo "the watcher is gone" >&2; exit 1; fi
cat "$dir/answer"
`

// monitoredRepo is worktreeRepo with core.fsmonitor naming a fake hook and a
// baseline file set.
func monitoredRepo(t *testing.T, files map[string]string) (*Repo, plumbing.Hash, *fakeHook) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("fsmonitor hooks are run only on Unix systems")
	}
	r, tree := worktreeRepo(t, files)
	h := &fakeHook{t: t, dir: t.TempDir()}
	hook := filepath.Join(h.dir, "query-fsmonitor")
	if err := os.WriteFile(hook, []byte(fakeHookScript), 0o755); err != nil {
		t.Fatal(err)
	}
	setConfig(t, r, "fsmonitor", hook)
	r.FSMonitorBaseline = filepath.Join(t.TempDir(), "fsmonitor-baseline")
	h.answer("t0")
	return r, tree, h
}

// setConfig sets core.name in the repository's config ("" removes it).
func setConfig(t *testing.T, r *Repo, name, value string) {
	t.Helper()
	cfg, err := r.Config()
	if err != nil {
		t.Fatal(err)
	}
	if value == "" {
		cfg.Raw.Section("core").RemoveOption(name)
	} else {
		cfg.Raw.Section("core").SetOption(name, value)
	}
	if err := r.SetConfig(cfg); err != nil {
		t.Fatal(err)
	}
}

// answer makes the hook print token and the paths, each ended by a NUL.
func (h *fakeHook) answer(token string, paths ...string) {
	h.raw(token + "\x00" + strings.Join(paths, "\x00"))
}

func (h *fakeHook) raw(answer string) {
	h.t.Helper()
	if err := os.WriteFile(filepath.Join(h.dir, "answer"), []byte(answer), 0o644); err != nil {
		h.t.Fatal(err)
	}
}

// set creates (on) or removes the hook's file name ("fail", "sleep") with content.
func (h *fakeHook) set(name string, on bool, content string) {
	h.t.Helper()
	file := filepath.Join(h.dir, name)
	if !on {
		_ = os.Remove(file)
		return
	}
	if err := os.WriteFile(file, []byte(content), 0o644); err != nil {
		h.t.Fatal(err)
	}
}

// lastArgs are the arguments of the hook's last run ("" when it never ran).
func (h *fakeHook) lastArgs() string {
	data, _ := os.ReadFile(filepath.Join(h.dir, "args"))
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	return lines[len(lines)-1]
}

// scanned is the working tree's diff by a full scan, without the monitor.
func scanned(t *testing.T, r *Repo, tree plumbing.Hash) *WorktreeDiff {
	t.Helper()
	plain := *r
	plain.FSMonitorBaseline, plain.ListingCache = "", ""
	d, err := plain.WorktreeDiff(tree)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// monitored is the working tree's diff with the monitor, checked to be the full
// scan's and to have used the monitor as want says ("incremental", or the start of a
// full scan's reason).
func monitored(t *testing.T, r *Repo, tree plumbing.Hash, want string) *WorktreeDiff {
	t.Helper()
	d, err := r.WorktreeDiff(tree)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(d.Monitor, want) {
		t.Errorf("monitor %q, want %q", d.Monitor, want)
	}
	full := scanned(t, r, tree)
	if !slices.Equal(d.Paths, full.Paths) || !slices.Equal(d.Dirs, full.Dirs) {
		t.Errorf("with the monitor (%s): paths %q dirs %q; the full scan: %q and %q", d.Monitor, d.Paths, d.Dirs, full.Paths, full.Dirs)
	}
	return d
}

func TestFSMonitorProtocol(t *testing.T) {
	r, tree, h := monitoredRepo(t, worktreeFiles)
	h.answer("t1", "whatever/was/there")
	d := monitored(t, r, tree, "full scan: no baseline")
	wantDiff(t, d, nil, nil)
	if args := h.lastArgs(); !strings.HasPrefix(args, "2 ") || args == "2 t1" {
		t.Errorf("the first query's arguments %q, want 2 and a token of the time", args)
	}

	paid := "contracts/orders/paid/contract.yaml"
	writeFile(t, filepath.Join(r.Root, paid), "subject: orders.paid-value-2\n")
	h.answer("t2", paid)
	d = monitored(t, r, tree, "incremental")
	wantDiff(t, d, []string{paid}, nil)
	if h.lastArgs() != "2 t1" {
		t.Errorf("the hook ran with %q, want the baseline's token: 2 t1", h.lastArgs())
	}
	if d.Hashed != 1 || d.Listed != 2 { // the file; its folder, and the root (for .git)
		t.Errorf("hashed %d files and listed %d folders, want 1 and 2", d.Hashed, d.Listed)
	}

	// Nothing reported: the baseline's differing file is compared again, and stays.
	h.answer("t3")
	wantDiff(t, monitored(t, r, tree, "incremental"), []string{paid}, nil)
	if h.lastArgs() != "2 t2" {
		t.Errorf("the hook ran with %q, want 2 t2", h.lastArgs())
	}

	// An edit the hook does not report is not seen: only what it reports is read.
	settled := "contracts/payments/settled/settled.avsc"
	writeFile(t, filepath.Join(r.Root, settled), `{"type": "record", "name": "C", "fields": []}`)
	h.answer("t4")
	if d, err := r.WorktreeDiff(tree); err != nil || !slices.Equal(d.Paths, []string{paid}) {
		t.Errorf("an edit the hook did not report: paths %v (%v), want only %s", d, err, paid)
	}
	h.answer("t5", settled)
	wantDiff(t, monitored(t, r, tree, "incremental"), []string{paid, settled}, nil)

	// The first edit undone and reported: no longer a change.
	writeFile(t, filepath.Join(r.Root, paid), worktreeFiles[paid])
	h.answer("t6", paid)
	wantDiff(t, monitored(t, r, tree, "incremental"), []string{settled}, nil)
}

// A folder answered ("dir/", or a folder the index tracks named without the slash):
// every file under it is compared and every folder under it listed again.
func TestFSMonitorFolderAnswers(t *testing.T) {
	for _, name := range []string{"contracts/orders/", "contracts/orders"} {
		t.Run(name, func(t *testing.T) {
			r, tree, h := monitoredRepo(t, worktreeFiles)
			h.answer("t1")
			monitored(t, r, tree, "full scan: no baseline")
			created := "contracts/orders/created/created.avsc"
			writeFile(t, filepath.Join(r.Root, created), "{}")
			writeFile(t, filepath.Join(r.Root, "contracts/orders/created/consumers/new/deep/x.yaml"), "x\n")
			h.answer("t2", name)
			d := monitored(t, r, tree, "incremental")
			wantDiff(t, d, []string{
				"contracts/orders/created/consumers/new/deep",
				"contracts/orders/created/consumers/new/deep/x.yaml",
				created,
			}, []string{"contracts/orders/created/consumers/new", "contracts/orders/created/consumers/new/deep"})
			if d.Listed < 4 { // orders, created, consumers, paid at least
				t.Errorf("listed %d folders under the folder answered", d.Listed)
			}
		})
	}
}

// Whatever cannot be trusted is a full scan: the result is the full scan's, an edit
// the hook does not report included.
func TestFSMonitorFallsBack(t *testing.T) {
	defer func(d time.Duration) { hookTimeout = d }(hookTimeout)
	hookTimeout = 300 * time.Millisecond
	paid := "contracts/orders/paid/contract.yaml"
	for _, c := range []struct {
		name, want string
		setup      func(t *testing.T, r *Repo, h *fakeHook)
		baseline   bool // a baseline is made (the next call builds on it)
	}{
		{"the hook fails", "full scan: the hook failed: exit status 1: the watcher is gone", func(t *testing.T, r *Repo, h *fakeHook) {
			h.set("fail", true, "")
		}, false},
		{"the hook times out", "full scan: the hook failed: no answer in 300ms", func(t *testing.T, r *Repo, h *fakeHook) {
			h.set("sleep", true, "30")
		}, false},
		{"everything answered", "full scan: the hook answered everything", func(t *testing.T, r *Repo, h *fakeHook) {
			h.answer("t2", "contracts/x", "/")
		}, true},
		{"no token", "full scan: the hook failed: an answer with no token", func(t *testing.T, r *Repo, h *fakeHook) {
			h.raw("t2")
		}, false},
		{"a path outside", "full scan: the hook failed: an unusable path", func(t *testing.T, r *Repo, h *fakeHook) {
			h.answer("t2", "contracts/../../etc")
		}, false},
		{"an absolute path", "full scan: the hook failed: an unusable path", func(t *testing.T, r *Repo, h *fakeHook) {
			h.answer("t2", "/c:1234")
		}, false},
		{"the index changed", "full scan: the index changed", func(t *testing.T, r *Repo, h *fakeHook) {
			wt, err := r.Worktree()
			if err != nil {
				t.Fatal(err)
			}
			writeFile(t, filepath.Join(r.Root, "contracts/new.yaml"), "new\n")
			if _, err := wt.Add("contracts/new.yaml"); err != nil {
				t.Fatal(err)
			}
		}, true},
		{"a damaged baseline", "full scan: no baseline", func(t *testing.T, r *Repo, h *fakeHook) {
			data, err := os.ReadFile(r.FSMonitorBaseline)
			if err != nil {
				t.Fatal(err)
			}
			data[len(data)/2] ^= 1
			if err := os.WriteFile(r.FSMonitorBaseline, data, 0o644); err != nil {
				t.Fatal(err)
			}
		}, true},
		{"another working tree's baseline", "full scan: no baseline", func(t *testing.T, r *Repo, h *fakeHook) {
			other, _, _ := monitoredRepo(t, worktreeFiles)
			other.FSMonitorBaseline = r.FSMonitorBaseline
			if _, err := other.WorktreeDiff(plumbing.ZeroHash); err != nil {
				t.Fatal(err)
			}
		}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, tree, h := monitoredRepo(t, worktreeFiles)
			h.answer("t1")
			monitored(t, r, tree, "full scan: no baseline")
			writeFile(t, filepath.Join(r.Root, paid), "subject: not reported\n")
			h.answer("t2")
			c.setup(t, r, h)
			start := time.Now()
			d := monitored(t, r, tree, c.want)
			if !slices.Contains(d.Paths, paid) {
				t.Errorf("the full scan missed an edit: %q", d.Paths)
			}
			if took := time.Since(start); took > 5*time.Second {
				t.Errorf("took %v", took)
			}
			h.set("fail", false, "")
			h.set("sleep", false, "")
			h.answer("t3", paid) // changed since either token
			monitored(t, r, tree, "incremental")
			want := "2 t1" // no new baseline: the next call builds on the old one
			if c.baseline {
				want = "2 t2"
			}
			if h.lastArgs() != want {
				t.Errorf("the next query's arguments %q, want %q", h.lastArgs(), want)
			}
		})
	}
}

// core.fsmonitor as a boolean (Git's built-in daemon) or with hook version 1 is not
// used; nor is any hook without a baseline file.
func TestFSMonitorConfig(t *testing.T) {
	r, tree, h := monitoredRepo(t, worktreeFiles)
	for _, c := range []struct{ key, value string }{
		{"fsmonitor", "true"}, {"fsmonitor", "false"}, {"fsmonitor", "1"}, {"fsmonitor", ""},
	} {
		setConfig(t, r, c.key, c.value)
		if d, err := r.WorktreeDiff(tree); err != nil || d.Monitor != "" {
			t.Errorf("core.%s=%q: monitor %q (%v), want none", c.key, c.value, d.Monitor, err)
		}
	}
	setConfig(t, r, "fsmonitor", filepath.Join(h.dir, "query-fsmonitor"))
	setConfig(t, r, "fsmonitorHookVersion", "1")
	if d, err := r.WorktreeDiff(tree); err != nil || d.Monitor != "" {
		t.Errorf("hook version 1: monitor %q (%v), want none", d.Monitor, err)
	}
	setConfig(t, r, "fsmonitorHookVersion", "2")
	r.FSMonitorBaseline = ""
	if d, err := r.WorktreeDiff(tree); err != nil || d.Monitor != "" {
		t.Errorf("no baseline file: monitor %q (%v), want none", d.Monitor, err)
	}
	if _, err := os.Stat(filepath.Join(h.dir, "args")); err == nil {
		t.Errorf("the hook ran: %s", h.lastArgs())
	}
}

// The monitor's result is the full scan's over random edits, each reported as a
// watcher reports it (the paths touched; sometimes their folders as "dir/"), and
// over index changes (a full scan, then a new baseline).
func TestFSMonitorAgreesWithScan(t *testing.T) {
	files := map[string]string{}
	for d := range 4 {
		for s := range 4 {
			for _, f := range []string{"contract.yaml", "schema.avsc", "consumers/a.yaml", "consumers/b.yaml"} {
				files[fmt.Sprintf("contracts/d%d/s%d/%s", d, s, f)] = fmt.Sprintf("%d %d %s\n", d, s, f)
			}
		}
	}
	files["README.md"] = "readme\n"
	r, tree, h := monitoredRepo(t, files)
	h.answer("t0")
	monitored(t, r, tree, "full scan: no baseline")
	rng := rand.New(rand.NewPCG(1, 31))
	abs := func(p string) string { return filepath.Join(r.Root, filepath.FromSlash(p)) }
	// paths lists the working tree's files and folders (not .git) under p.
	paths := func(kind func(fs os.FileInfo) bool) []string {
		var out []string
		_ = filepath.Walk(r.Root, func(name string, fi os.FileInfo, err error) error {
			rel, _ := filepath.Rel(r.Root, name)
			rel = filepath.ToSlash(rel)
			if err != nil || rel == "." {
				return nil //nolint:nilerr // a path gone while walking
			}
			if rel == ".git" {
				return filepath.SkipDir
			}
			if kind(fi) {
				out = append(out, rel)
			}
			return nil
		})
		return out
	}
	isFile := func(fi os.FileInfo) bool { return fi.Mode().IsRegular() }
	isAny := func(os.FileInfo) bool { return true }
	isDir := func(fi os.FileInfo) bool { return fi.IsDir() }
	pick := func(list []string) string {
		if len(list) == 0 {
			return ""
		}
		return list[rng.IntN(len(list))]
	}
	done := map[int]int{} // how often each kind of edit was made
	for round := range 150 {
		var touched []string
		for range 1 + rng.IntN(4) {
			f, d := pick(paths(isFile)), pick(paths(isDir))
			if f == "" || d == "" {
				continue
			}
			n := fmt.Sprintf("n%d-%d", round, rng.IntN(1000))
			op := rng.IntN(11)
			done[op]++
			switch op {
			case 0: // edit, same size or not
				writeFile(t, abs(f), strings.Repeat("e", rng.IntN(3)+10))
				touched = append(touched, f)
			case 1: // delete
				_ = os.Remove(abs(f))
				touched = append(touched, f)
			case 2: // rename into another folder
				to := d + "/" + n
				_ = os.Rename(abs(f), abs(to))
				touched = append(touched, f, to)
			case 3: // mode change
				fi, err := os.Lstat(abs(f))
				if err == nil && fi.Mode().IsRegular() {
					_ = os.Chmod(abs(f), fi.Mode()^0o111)
					touched = append(touched, f)
				}
			case 4: // a new file in a new folder in a new folder
				p := d + "/" + n + "/sub/x.yaml"
				writeFile(t, abs(p), "x\n")
				touched = append(touched, p, d+"/"+n, d+"/"+n+"/sub")
			case 5: // a new file beside others
				writeFile(t, abs(d+"/"+n+".yaml"), "y\n")
				touched = append(touched, d+"/"+n+".yaml")
			case 6: // a folder deleted, each file reported, or the folder as "dir/"
				if d == "contracts" {
					continue
				}
				under := []string{d}
				for _, p := range paths(isAny) {
					if strings.HasPrefix(p, d+"/") {
						under = append(under, p)
					}
				}
				_ = os.RemoveAll(abs(d))
				if rng.IntN(2) == 0 {
					under = []string{d + "/"}
				}
				touched = append(touched, under...)
			case 7: // a file replaced by a folder, or a link
				_ = os.Remove(abs(f))
				if rng.IntN(2) == 0 {
					writeFile(t, abs(f+"/inside.yaml"), "z\n")
					touched = append(touched, f, f+"/inside.yaml")
				} else {
					_ = os.Symlink("elsewhere", abs(f))
					touched = append(touched, f)
				}
			case 8: // a folder replaced by a link, or a file
				if d == "contracts" || strings.Count(d, "/") < 2 {
					continue
				}
				_ = os.RemoveAll(abs(d))
				if rng.IntN(2) == 0 {
					_ = os.Symlink("..", abs(d))
				} else {
					writeFile(t, abs(d), "a file\n")
				}
				touched = append(touched, d+"/")
			case 9: // an empty folder
				_ = os.MkdirAll(abs(d+"/"+n), 0o755)
				touched = append(touched, d+"/"+n)
			case 10: // a new file deep under a folder, reported as the folder's ("dir/")
				writeFile(t, abs(parent(f)+"/"+n+"/x.yaml"), "w\n")
				up := parent(f)
				for range rng.IntN(3) {
					if parent(up) != "" {
						up = parent(up)
					}
				}
				touched = append(touched, up+"/")
			}
		}
		want := "incremental"
		if round%7 == 6 { // the index changes: a file edited and staged
			if f := pick(paths(isFile)); f != "" {
				writeFile(t, abs(f), fmt.Sprintf("staged in round %d\n", round))
				touched = append(touched, f)
				wt, err := r.Worktree()
				if err != nil {
					t.Fatal(err)
				}
				if _, err := wt.Add(f); err != nil {
					t.Fatal(err)
				}
				want = "full scan: the index changed"
			}
		}
		h.answer(fmt.Sprintf("t%d", round+1), touched...)
		if t.Failed() {
			return
		}
		t.Logf("round %d: %q", round, touched)
		monitored(t, r, tree, want)
	}
	for op := range 11 {
		if done[op] < 5 {
			t.Errorf("edits of kind %d made %d times, want at least 5: %v", op, done[op], done)
		}
	}
}

// A tracked folder replaced by a link to a folder: the full scan does not list
// through the link, and neither does a call that the hook sends there.
func TestFSMonitorLinkedFolder(t *testing.T) {
	for _, answer := range [][]string{{"contracts/payments/settled/"}, {"contracts/payments/settled", "contracts/payments/settled/consumers/bi.yaml"}} {
		r, tree, h := monitoredRepo(t, worktreeFiles)
		h.answer("t1")
		monitored(t, r, tree, "full scan: no baseline")
		settled := filepath.Join(r.Root, "contracts/payments/settled")
		if err := os.RemoveAll(settled); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink("../orders", settled); err != nil {
			t.Fatal(err)
		}
		h.answer("t2", answer...)
		d := monitored(t, r, tree, "incremental")
		if slices.Contains(d.Paths, "contracts/payments/settled/created") {
			t.Errorf("listed through the link: %q", d.Paths)
		}
	}
}

// Git's own Watchman hook, where watchman and Git's sample hook are installed (with
// CONTRACTBOT_WATCHMAN=1, as CI sets it, they must be): a watchman server of the
// test's own (its state under TMPDIR) is started by the hook's first run and shut
// down at the end.
func TestFSMonitorWatchman(t *testing.T) {
	const sample = "/usr/share/git-core/templates/hooks/fsmonitor-watchman.sample"
	skip := t.Skipf
	if os.Getenv("CONTRACTBOT_WATCHMAN") != "" {
		skip = t.Fatalf
	}
	for _, need := range []string{"watchman", "perl"} {
		if _, err := exec.LookPath(need); err != nil {
			skip("no %s command: the Watchman hook is not tried (apt-get install watchman)", need)
		}
	}
	script, err := os.ReadFile(sample)
	if err != nil {
		skip("no Git sample hook %s: the Watchman hook is not tried", sample)
	}
	state := t.TempDir()
	r, tree := worktreeRepo(t, worktreeFiles)
	t.Setenv("TMPDIR", state) // the watchman server the hook starts keeps its socket there
	t.Cleanup(func() {
		cmd := exec.Command("watchman", "shutdown-server")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Logf("watchman shutdown-server: %v\n%s", err, out)
		}
	})
	hook := filepath.Join(r.GitDir, "hooks", "query-watchman")
	writeFile(t, hook, string(script))
	if err := os.Chmod(hook, 0o755); err != nil {
		t.Fatal(err)
	}
	setConfig(t, r, "fsmonitor", ".git/hooks/query-watchman") // relative to the working tree, as Git runs it
	r.FSMonitorBaseline = filepath.Join(t.TempDir(), "fsmonitor-baseline")

	// The first run starts the watch (the sample's answer then is not one to use),
	// the second lists everything for a token, and makes the baseline.
	for range 3 {
		d := monitored(t, r, tree, "full scan: ")
		if !strings.HasPrefix(d.Monitor, "full scan: the hook failed") {
			break
		}
		t.Logf("monitor: %s", d.Monitor)
	}
	paid := "contracts/orders/paid/contract.yaml"
	writeFile(t, filepath.Join(r.Root, paid), "subject: orders.paid-value-2\n")
	writeFile(t, filepath.Join(r.Root, "contracts/orders/refunded/consumers/x.yaml"), "name: x\n")
	if err := os.Remove(filepath.Join(r.Root, "contracts/payments/settled/consumers/ml.yaml")); err != nil {
		t.Fatal(err)
	}
	d := monitored(t, r, tree, "incremental")
	wantDiff(t, d, []string{
		"contracts/orders/paid/contract.yaml",
		"contracts/orders/refunded/consumers",
		"contracts/orders/refunded/consumers/x.yaml",
		"contracts/payments/settled/consumers/ml.yaml",
	}, []string{"contracts/orders/refunded", "contracts/orders/refunded/consumers"})
	if d.Hashed > 2 {
		t.Errorf("hashed %d files, want the one edited (and none unchanged)", d.Hashed)
	}
	if err := os.Rename(filepath.Join(r.Root, "contracts/orders/refunded"), filepath.Join(r.Root, "contracts/refunds")); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(r.Root, paid), worktreeFiles[paid])
	wantDiff(t, monitored(t, r, tree, "incremental"), []string{
		"contracts/payments/settled/consumers/ml.yaml",
		"contracts/refunds/consumers",
		"contracts/refunds/consumers/x.yaml",
	}, []string{"contracts/refunds", "contracts/refunds/consumers"})
}
