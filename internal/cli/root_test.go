package cli

import (
	"bytes"
	"path/filepath"
	"testing"
)

// TestUnknownSubcommand: a group command (lineage, registry) refuses an unknown
// subcommand as the root does, exit 2 with cobra's suggestions, and every error ends
// with the hint naming the help of the command that failed.
func TestUnknownSubcommand(t *testing.T) {
	cases := []struct {
		name string
		args []string
	}{
		{"root-typo", []string{"lnt"}},
		{"lineage-unknown", []string{"lineage", "foo"}},
		{"lineage-typo", []string{"lineage", "syn"}},
		{"registry-typo", []string{"registry", "srve"}},
		{"lint-bad-flag", []string{"lint", "--bogus"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := Main(c.args, &out, &errb)
			if code != 2 {
				t.Errorf("exit %d, want 2", code)
			}
			if out.Len() != 0 {
				t.Errorf("stdout not empty:\n%s", out.String())
			}
			goldenFile(t, filepath.Join("testdata", "usage", c.name+".txt"), errb.String())
		})
	}
}

// TestGroupWithoutSubcommand: a group command given nothing still prints its help and
// exits 0.
func TestGroupWithoutSubcommand(t *testing.T) {
	for _, g := range []string{"lineage", "registry"} {
		var out, errb bytes.Buffer
		if code := Main([]string{g}, &out, &errb); code != 0 {
			t.Errorf("%s: exit %d, want 0; stderr:\n%s", g, code, errb.String())
		}
		if !bytes.Contains(out.Bytes(), []byte("Available Commands:")) {
			t.Errorf("%s: help not printed:\n%s", g, out.String())
		}
	}
}
