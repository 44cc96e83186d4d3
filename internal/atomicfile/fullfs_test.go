package atomicfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contractbot/contractbot/internal/testutil"
)

// TestWriteOnAFullDisk: on a file system that is full, a write fails, the old file
// stays whole and no temporary file is left; once space is freed it succeeds. The
// publish state and the caches (versions index, summaries, audit) are written so.
func TestWriteOnAFullDisk(t *testing.T) {
	dir := testutil.FullFS(t, 64<<10)
	path := filepath.Join(dir, "state.json")
	old := `{"commits": {}}` + "\n"
	if err := Write(path, []byte(old)); err != nil {
		t.Fatal(err)
	}
	filler := testutil.Fill(t, dir, 4096)
	if err := Write(path, []byte(strings.Repeat("x", 10000))); err == nil {
		t.Fatal("a write on a full disk succeeded")
	}
	if got, err := os.ReadFile(path); err != nil || string(got) != old {
		t.Errorf("after a failed write the file holds %q (%v)", got, err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("the folder holds %d entries, want the file and the filler: a temporary file was left", len(entries))
	}
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	if err := Write(path, []byte("new\n")); err != nil {
		t.Fatal(err)
	}
}

// TestWriteFailsWhenTheFolderIsNotSynced: the rename is durable only once the folder
// is synced; when that fails (an I/O error, a full journal), Write says so, and a
// caller marking progress (publish's state) does not mark it.
func TestWriteFailsWhenTheFolderIsNotSynced(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	injected := errors.New("injected: the folder cannot be synced")
	synced := syncDir
	t.Cleanup(func() { syncDir = synced })
	syncDir = func(string) error { return injected }
	if err := Write(path, []byte("new\n")); !errors.Is(err, injected) {
		t.Errorf("Write with a folder that cannot be synced: %v, want the sync's error", err)
	}
	syncDir = synced
	if err := Write(path, []byte("new\n")); err != nil {
		t.Errorf("Write: %v", err)
	}
}
