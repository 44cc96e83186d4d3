package testutil

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

// FullFS mounts a tmpfs of size bytes in a temporary folder and returns the folder:
// a real file system that fills up, for tests of what a full disk does to a file.
// The test is skipped, saying why, where mounting is refused (not root, no tmpfs, a
// sandbox without CAP_SYS_ADMIN); such tests keep a fault-injecting writer beside it.
func FullFS(t *testing.T, size int) string {
	t.Helper()
	dir := t.TempDir()
	out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+strconv.Itoa(size), "tmpfs", dir).CombinedOutput()
	if err != nil {
		t.Skipf("no small file system to fill: mount -t tmpfs refused (%v: %s); the fault-injecting writer's tests cover this case", err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v: %s", dir, err, out)
		}
	})
	return dir
}

// Fill writes into dir until its file system is full, then frees leave bytes, and
// returns the filler's path: removing it frees the space again.
func Fill(t *testing.T, dir string, leave int) string {
	t.Helper()
	path := filepath.Join(dir, "filler")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }() // the writes fail on purpose: nothing to keep
	buf := make([]byte, 4096)
	for size := len(buf); size > 0; {
		if _, err := f.Write(buf[:size]); err != nil {
			size /= 2 // the last blocks, smaller
		}
	}
	st, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(max(st.Size()-int64(leave), 0)); err != nil {
		t.Fatal(err)
	}
	return path
}
