package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
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

// TestWriteToOnAFullDisk: a streamed write that fills the disk part way (the parse
// cache, hundreds of MB, is written so) fails with the disk's error, keeps the old
// file whole and leaves no temporary file; once space is freed the same stream is
// written whole.
func TestWriteToOnAFullDisk(t *testing.T) {
	dir := testutil.FullFS(t, 1<<20)
	path := filepath.Join(dir, "lint-parses")
	old := "the cache written before\n"
	if err := Write(path, []byte(old)); err != nil {
		t.Fatal(err)
	}
	filler := testutil.Fill(t, dir, 64<<10)
	chunk := []byte(strings.Repeat("0123456789abcdef", 1024)) // 16 KiB
	stream := func(w io.Writer) error {
		for range 32 { // 512 KiB: more than is left, less than the disk
			if _, err := w.Write(chunk); err != nil {
				return err
			}
		}
		return nil
	}
	if err := WriteTo(path, stream); !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("a streamed write on a full disk: %v, want ENOSPC", err)
	}
	if got, err := os.ReadFile(path); err != nil || string(got) != old {
		t.Errorf("after a failed write the file holds %d bytes (%v), want the old %d", len(got), err, len(old))
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("the folder holds %v, want the file and the filler: a temporary file was left", entries)
	}
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	if err := WriteTo(path, stream); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(path); err != nil || st.Size() != 32*int64(len(chunk)) {
		t.Errorf("after space was freed: %v, %v; want %d bytes", st, err, 32*len(chunk))
	}
}

// TestWriteToKeepsTheOldFileWhenTheFileIsNotSynced: file systems with delayed
// allocation (ext4, XFS) and network ones may report a full disk only when the data
// is flushed. The sync's error is returned and the old file kept: without the sync
// the rename would put a file in place whose data may never reach the disk.
func TestWriteToKeepsTheOldFileWhenTheFileIsNotSynced(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lint-parses")
	if err := Write(path, []byte("old\n")); err != nil {
		t.Fatal(err)
	}
	synced := syncFile
	t.Cleanup(func() { syncFile = synced })
	calls := 0
	syncFile = func(*os.File) error { calls++; return syscall.ENOSPC }
	err := WriteTo(path, func(w io.Writer) error {
		_, err := io.WriteString(w, "new\n")
		return err
	})
	if !errors.Is(err, syscall.ENOSPC) || calls != 1 {
		t.Errorf("WriteTo with a file that cannot be synced: %v after %d syncs, want ENOSPC after 1", err, calls)
	}
	if got, _ := os.ReadFile(path); string(got) != "old\n" {
		t.Errorf("the file holds %q, want the old content", got)
	}
	if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 1 {
		t.Errorf("the folder holds %v, want the file alone", entries)
	}
}
