package appendfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/contractbot/contractbot/internal/testutil"
)

// halfWriter writes half of what it is given, then fails as a full disk does.
func halfWriter(t *testing.T) {
	t.Helper()
	old := writeAt
	writeAt = func(f *os.File, b []byte, off int64) (int, error) {
		n, _ := f.WriteAt(b[:len(b)/2], off)
		return n, syscall.ENOSPC
	}
	t.Cleanup(func() { writeAt = old })
}

// TestAFailedAppendLeavesNoTornRecord: a write that fails half-way is cut back off
// the file, so the retry lands on a line of its own and every line is whole.
func TestAFailedAppendLeavesNoTornRecord(t *testing.T) {
	path := filepath.Join(t.TempDir(), "events.jsonl")
	f, _, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Append([]byte(`{"n":1}` + "\n")); err != nil {
		t.Fatal(err)
	}
	halfWriter(t)
	if err := f.Append([]byte(`{"n":2,"padding":"xxxxxxxxxxxxxxxx"}` + "\n")); !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("the failed append: %v", err)
	}
	if got := read(t, path); got != `{"n":1}`+"\n" {
		t.Fatalf("after a failed append the file holds %q", got)
	}
	writeAt = func(f *os.File, b []byte, off int64) (int, error) { return f.WriteAt(b, off) }
	if err := f.Append([]byte(`{"n":2}` + "\n")); err != nil {
		t.Fatal(err)
	}
	if got := read(t, path); got != `{"n":1}`+"\n"+`{"n":2}`+"\n" {
		t.Errorf("after the retry the file holds %q", got)
	}
}

// TestOpenCutsATornLastLine: what a crash in the middle of an append left is cut off
// when the file is opened, and said.
func TestOpenCutsATornLastLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "events.jsonl")
	if err := os.WriteFile(path, []byte("{\"n\":1}\n{\"n\":2,\"pad"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, torn, err := Open(path)
	if err != nil || torn != 11 {
		t.Fatalf("open: torn %d, %v; want 11 bytes torn", torn, err)
	}
	defer f.Close()
	if err := f.Append([]byte(`{"n":3}` + "\n")); err != nil {
		t.Fatal(err)
	}
	if got := read(t, path); got != "{\"n\":1}\n{\"n\":3}\n" {
		t.Errorf("the file holds %q", got)
	}
}

// TestAppendOnAFullFileSystem: on a real file system that fills up, appends fail
// while it is full and leave only whole lines; once space is freed they go on.
func TestAppendOnAFullFileSystem(t *testing.T) {
	dir := testutil.FullFS(t, 64<<10)
	path := filepath.Join(dir, "events.jsonl")
	f, _, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	line := []byte(`{"pad":"` + strings.Repeat("x", 10000) + `"}` + "\n")
	if err := f.Append(line); err != nil {
		t.Fatal(err)
	}
	filler := testutil.Fill(t, dir, 4096) // a page free: less than a line
	failed := 0
	for range 3 {
		if err := f.Append(line); err != nil {
			failed++
		}
	}
	if failed != 3 {
		t.Fatalf("%d of 3 appends failed on a full file system", failed)
	}
	if got := read(t, path); got != string(line) {
		t.Fatalf("a full file system left %d bytes, want the one whole line (%d)", len(got), len(line))
	}
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	if err := f.Append(line); err != nil {
		t.Fatal(err)
	}
	if got := read(t, path); got != string(line)+string(line) {
		t.Errorf("after space was freed the file holds %d bytes, want two whole lines", len(got))
	}
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
