package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Write creates the folder, replaces an existing file and leaves no temporary file.
func TestWrite(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "cache", "a.json")
	for _, want := range []string{"first", "second, longer than the first"} {
		if err := Write(path, []byte(want)); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(path)
		if err != nil || string(got) != want {
			t.Fatalf("read %q (%v), want %q", got, err, want)
		}
	}
	entries, err := os.ReadDir(filepath.Dir(path))
	if err != nil || len(entries) != 1 {
		t.Errorf("the folder holds %d entries (%v), want the file alone", len(entries), err)
	}
}

// A write that cannot be renamed into place (a folder is there) fails and leaves no
// temporary file behind.
func TestWriteFailureLeavesNoTemporaryFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.json")
	if err := os.MkdirAll(filepath.Join(path, "inside"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := Write(path, []byte("new")); err == nil {
		t.Error("a write over a folder succeeded")
	}
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) != 1 || !entries[0].IsDir() {
		t.Errorf("the folder holds %v (%v), want the folder a.json alone", entries, err)
	}
}

// A stream that fails part way (an encoder's error) leaves the old file and no
// temporary file, and WriteTo returns the stream's own error.
func TestWriteToStreamError(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.gob")
	if err := Write(path, []byte("old")); err != nil {
		t.Fatal(err)
	}
	failed := errors.New("the encoder failed")
	err := WriteTo(path, func(w io.Writer) error {
		if _, err := io.WriteString(w, strings.Repeat("x", 200<<10)); err != nil {
			return err
		}
		return failed
	})
	if !errors.Is(err, failed) {
		t.Errorf("WriteTo: %v, want the stream's error", err)
	}
	if got, _ := os.ReadFile(path); string(got) != "old" {
		t.Errorf("the file holds %d bytes, want the old content", len(got))
	}
	if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 1 {
		t.Errorf("the folder holds %v, want the file alone", entries)
	}
}
