// Package scaffold makes the files of a new contract repository (contractbot init):
// teams, one subject with a consumer, a freeze, a planned change, the JSON Schemas the
// files name for the editor, the GitHub workflow, a README and the CODEOWNERS the
// files imply. The result passes `contractbot lint` with no diagnostic.
package scaffold

import (
	"bytes"
	"embed"
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"strings"
	"text/template"
	"time"

	"github.com/contractbot/contractbot/docs/schemas"
	"github.com/contractbot/contractbot/internal/contract"
)

//go:embed all:files
var files embed.FS

// SchemasDir is where the repository keeps the JSON Schemas its files name.
const SchemasDir = "docs/schemas"

// Options fill in the files.
type Options struct {
	// Org is the GitHub organisation of the teams' handles ("@org/orders").
	Org string
	// Now dates the planned change: the first Tuesday at least a week ahead.
	Now time.Time
	// Version is the contractbot version the workflow installs ("latest", "v1.2.0").
	Version string
}

// EntryDay is the day of the example calendar entry: the first Tuesday at least seven
// days after now (UTC), outside the weekend freeze.
func EntryDay(now time.Time) time.Time {
	d := now.UTC().Truncate(24*time.Hour).AddDate(0, 0, 7)
	for d.Weekday() != time.Tuesday {
		d = d.AddDate(0, 0, 1)
	}
	return d
}

// Files returns the new repository's files by slash-separated path.
func Files(o Options) (map[string][]byte, error) {
	if o.Org == "" || strings.ContainsAny(o.Org, "/@ \"'\n") {
		return nil, fmt.Errorf("the GitHub organisation %q is not a name like acme", o.Org)
	}
	if o.Version == "" {
		o.Version = "latest"
	}
	date := EntryDay(o.Now).Format("2006-01-02")
	data := struct{ Org, Date, Version string }{o.Org, date, o.Version}
	out := map[string][]byte{}
	err := fs.WalkDir(files, "files", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		raw, err := files.ReadFile(p)
		if err != nil {
			return err
		}
		t, err := template.New(p).Delims("[[", "]]").Option("missingkey=error").Parse(string(raw))
		if err != nil {
			return fmt.Errorf("scaffold template %s: %w", p, err)
		}
		var b bytes.Buffer
		if err := t.Execute(&b, data); err != nil {
			return fmt.Errorf("scaffold template %s: %w", p, err)
		}
		rel := strings.Replace(strings.TrimPrefix(p, "files/"), "DATE", date, 1)
		out[rel] = b.Bytes()
		return nil
	})
	if err != nil {
		return nil, err
	}
	names, err := fs.Glob(schemas.FS, "*.schema.json")
	if err != nil {
		return nil, err
	}
	for _, n := range names {
		if n == "change-event.schema.json" {
			continue // describes the events publish sends, not a file of the repository
		}
		b, err := schemas.FS.ReadFile(n)
		if err != nil {
			return nil, err
		}
		out[SchemasDir+"/"+n] = b
	}
	tree, err := contract.Load(contract.MemSource(out))
	if err != nil {
		return nil, fmt.Errorf("load the new repository: %w", err)
	}
	if len(tree.Diagnostics) > 0 {
		return nil, fmt.Errorf("the new repository does not lint clean: %s", tree.Diagnostics[0])
	}
	out[contract.CodeownersFile] = contract.Codeowners(tree)
	return out, nil
}

// Paths lists the files' paths, sorted.
func Paths(files map[string][]byte) []string { return slices.Sorted(maps.Keys(files)) }
