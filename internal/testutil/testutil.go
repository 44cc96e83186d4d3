// Package testutil holds the helpers that tests across the project share: finding the
// repository root, copying or reading the example contract tree, comparing golden files.
package testutil

import (
	"os"
	"path/filepath"
	"testing"
)

// RepoRoot returns the project root: the nearest folder above the test's working
// directory that holds go.mod.
func RepoRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's working directory")
		}
		dir = parent
	}
}

// CopyTree copies the folders and regular files under from into to.
func CopyTree(t testing.TB, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(from, p)
		if err != nil {
			return err
		}
		target := filepath.Join(to, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// ExampleDirs are the folders of the project's example contract tree.
var ExampleDirs = []string{"contracts", "calendar"}

// CopyExample copies the example tree (contracts/ and calendar/) into dir.
func CopyExample(t testing.TB, dir string) {
	t.Helper()
	root := RepoRoot(t)
	for _, sub := range ExampleDirs {
		CopyTree(t, filepath.Join(root, sub), filepath.Join(dir, sub))
	}
}

// ExampleFiles reads the example tree into memory, keyed by slash-separated paths
// relative to the repository root (the shape of contract.MemSource).
func ExampleFiles(t testing.TB) map[string][]byte {
	t.Helper()
	root := RepoRoot(t)
	files := map[string][]byte{}
	for _, sub := range ExampleDirs {
		for p, data := range ReadFiles(t, filepath.Join(root, sub)) {
			files[sub+"/"+p] = data
		}
	}
	return files
}

// ReadFiles reads the files under dir into memory, keyed by slash-separated paths
// relative to dir (the files of a contract.Overlay).
func ReadFiles(t testing.TB, dir string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		files[filepath.ToSlash(rel)] = data
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// Golden compares got with the golden file at path, or rewrites the file when update
// is set (each package's -update flag).
func Golden(t testing.TB, path, got string, update bool) {
	t.Helper()
	if update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read the golden file (go test -update writes it): %v", err)
	}
	if got != string(want) {
		t.Errorf("%s differs (go test -update rewrites it):\n got:\n%s\nwant:\n%s", path, got, want)
	}
}
