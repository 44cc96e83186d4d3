package cli

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5"
	"github.com/spf13/cobra"
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
		if !bytes.Contains(out.Bytes(), []byte("Commands:")) {
			t.Errorf("%s: help not printed:\n%s", g, out.String())
		}
	}
}

// TestRepoArgument: `lint DIR` is `lint --repo DIR`; naming two repositories is an
// error; every command listed takes --repo.
func TestRepoArgument(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "r")
	var out, errb bytes.Buffer
	if code := Main([]string{"init", dir}, &out, &errb); code != 0 {
		t.Fatalf("init: exit %d: %s", code, errb.String())
	}
	run := func(args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		code := Main(args, &out, &errb)
		return code, out.String(), errb.String()
	}
	c1, o1, _ := run("lint", "--repo", dir)
	c2, o2, e2 := run("lint", dir)
	if c1 != c2 || o1 != o2 || c2 != 0 {
		t.Errorf("lint DIR: exit %d, %q, %q; lint --repo DIR: exit %d, %q", c2, o2, e2, c1, o1)
	}
	if c, _, e := run("lint", "--repo", dir, dir); c != 0 {
		t.Errorf("lint --repo DIR DIR: exit %d: %s", c, e)
	}
	c, _, e := run("lint", "--repo", "elsewhere", "other")
	if c != 2 {
		t.Errorf("two repositories: exit %d, want 2", c)
	}
	goldenFile(t, filepath.Join("testdata", "usage", "lint-two-repos.txt"), e)

	walk(New(), func(c *cobra.Command) {
		path := strings.TrimPrefix(c.CommandPath(), "contractbot ")
		if repoArgCommands[path] && c.Flags().Lookup("repo") == nil {
			t.Errorf("%s takes a repository argument but has no --repo", path)
		}
		if repoArgCommands[path] && !strings.Contains(c.Use, "[DIR]") {
			t.Errorf("%s: usage %q does not show [DIR]", path, c.Use)
		}
	})
}

// TestCheckWithoutCommit: check in a repository with no commit says what to do,
// instead of `resolve revision "HEAD": reference not found`.
func TestCheckWithoutCommit(t *testing.T) {
	dir := t.TempDir()
	if _, err := git.PlainInit(dir, false); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if code := Main([]string{"check", dir}, &out, &errb); code != 2 {
		t.Errorf("exit %d, want 2", code)
	}
	goldenFile(t, filepath.Join("testdata", "usage", "check-no-commit.txt"), errb.String())
}

// TestOutputFlag: every command that picks an output format with --format takes -o
// too (compat's --format is the schema format and keeps --json); -o json is
// --format json.
func TestOutputFlag(t *testing.T) {
	n := 0
	walk(New(), func(c *cobra.Command) {
		f := c.Flags().Lookup("format")
		if f == nil || c.Name() == "compat" {
			return
		}
		n++
		if f.Shorthand != "o" {
			t.Errorf("%s --format has no -o", c.CommandPath())
		}
	})
	if n < 6 {
		t.Errorf("%d commands with --format, want at least 6", n)
	}
	dir := filepath.Join(t.TempDir(), "r")
	var out, errb bytes.Buffer
	if code := Main([]string{"init", dir}, &out, &errb); code != 0 {
		t.Fatalf("init: exit %d: %s", code, errb.String())
	}
	var long, short bytes.Buffer
	Main([]string{"lint", "--format", "json", dir}, &long, &errb)
	Main([]string{"lint", "-o", "json", dir}, &short, &errb)
	if long.String() != short.String() || !strings.HasPrefix(short.String(), "{") {
		t.Errorf("lint -o json:\n%s\nlint --format json:\n%s\n%s", short.String(), long.String(), errb.String())
	}
}

// TestFormatAliasOfJSON: the commands that had only --json (impact, registry diff,
// lineage sql) take --format/-o json, the same output; a wrong value exits 2.
func TestFormatAliasOfJSON(t *testing.T) {
	sql := filepath.Join("..", "..", "jobs", "flink", "dwd-order-detail.sql")
	var a, b, errb bytes.Buffer
	if code := Main([]string{"lineage", "sql", "--json", sql}, &a, &errb); code != 0 {
		t.Fatalf("--json: exit %d: %s", code, errb.String())
	}
	if code := Main([]string{"lineage", "sql", "-o", "json", sql}, &b, &errb); code != 0 {
		t.Fatalf("-o json: exit %d: %s", code, errb.String())
	}
	if a.String() != b.String() || !strings.HasPrefix(b.String(), "{") {
		t.Errorf("-o json:\n%s\n--json:\n%s", b.String(), a.String())
	}
	for _, c := range []string{"impact", "registry diff", "lineage sql"} {
		var found bool
		walk(New(), func(cmd *cobra.Command) {
			if cmd.CommandPath() == "contractbot "+c {
				found = cmd.Flags().ShorthandLookup("o") != nil
			}
		})
		if !found {
			t.Errorf("%s has no -o", c)
		}
	}
	errb.Reset()
	if code := Main([]string{"lineage", "sql", "-o", "yaml", sql}, &a, &errb); code != 2 {
		t.Errorf("-o yaml: exit %d, want 2", code)
	}
	goldenFile(t, filepath.Join("testdata", "usage", "format-yaml.txt"), errb.String())
}
