package contract

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// resetImports empties the process's cache of domain imports for one test.
func resetImports(t *testing.T) {
	t.Helper()
	clearCache := func() {
		domainImports.Lock()
		clear(domainImports.byTree)
		clear(domainImports.used)
		domainImports.read = false
		domainImports.Unlock()
	}
	clearCache()
	t.Cleanup(clearCache)
}

// The imports of domain trees survive the cache file: a later process reads no domain
// it saved, and finds the same imports; a damaged domain is read again.
func TestSubjectImportsCacheFile(t *testing.T) {
	resetFolderCache(t)
	resetImports(t)
	_, head := twoRevisions(t)
	want, err := SubjectImports(head)
	must(t, err)
	if len(want["contracts/payments/payment-authorized"]) == 0 {
		t.Fatalf("the example's importer is missing: %v", want)
	}
	dir := t.TempDir()
	must(t, LoadFolderCache(dir))
	must(t, SaveFolderCache(dir))

	resetImports(t)
	must(t, LoadFolderCache(dir))
	got, err := SubjectImports(head)
	must(t, err)
	if !maps.EqualFunc(got, want, slices.Equal) {
		t.Errorf("from the file: %v, want %v", got, want)
	}
	if domainImports.read {
		t.Error("a domain saved in the file was read again")
	}

	// A damaged file is not read: its domains are read again.
	data, err := os.ReadFile(filepath.Join(dir, importsFile))
	must(t, err)
	damaged := strings.Replace(string(data), "payment-authorized\t", "payment-authorized", 1)
	must(t, os.WriteFile(filepath.Join(dir, importsFile), []byte(damaged), 0o644))
	resetImports(t)
	must(t, LoadFolderCache(dir))
	got, err = SubjectImports(head)
	must(t, err)
	if !maps.EqualFunc(got, want, slices.Equal) {
		t.Errorf("from a damaged file: %v, want %v", got, want)
	}
	if !domainImports.read {
		t.Error("the damaged domain was not read again")
	}
}
