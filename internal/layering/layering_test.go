// Package layering holds the test that keeps the core pure: no core package reaches
// an edge, directly or through another package (DESIGN.md, "Code"). golangci-lint's
// depguard checks direct imports file by file; this test checks the whole import
// graph with `go list -deps`.
package layering

import (
	"encoding/json"
	"io"
	"maps"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

const module = "github.com/contractbot/contractbot/"

// core are the pure packages (patterns as `go list` takes them).
var core = []string{"checker/...", "internal/impact", "internal/calendar", "internal/verdict",
	"internal/contract", "internal/change", "internal/lineage/flinksql", "internal/history"}

// edges may not be reached from the core at any depth.
var edges = []string{
	"github.com/google/go-github/", "github.com/slack-go/slack", "github.com/twmb/franz-go",
	"github.com/prometheus/", "github.com/chromedp/",
	module + "internal/bot", module + "internal/registry", module + "internal/events", module + "internal/publish",
	module + "internal/web", module + "internal/server", module + "internal/cli", module + "internal/githubfake",
}

// direct may not be imported by a core package itself. (go-git's transport package
// imports net/http, so the core reaches it through go-git; it never calls it.)
var direct = []string{"net/http", "net/http/httptest", "os/exec"}

type pkg struct {
	ImportPath string
	Imports    []string
	Deps       []string
}

func list(t *testing.T, args ...string) []pkg {
	t.Helper()
	cmd := exec.Command("go", append([]string{"list", "-json=ImportPath,Imports,Deps"}, args...)...)
	cmd.Dir = "../.."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var pkgs []pkg
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var p pkg
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

func TestCoreReachesNoEdge(t *testing.T) {
	var patterns []string
	for _, c := range core {
		patterns = append(patterns, "./"+c)
	}
	pkgs := list(t, patterns...)
	if len(pkgs) < len(core) {
		t.Fatalf("go list found %d core packages, want at least %d", len(pkgs), len(core))
	}
	for _, p := range pkgs {
		for _, d := range p.Deps {
			for _, e := range edges {
				if d == strings.TrimSuffix(e, "/") || strings.HasPrefix(d, e) || strings.HasPrefix(d, e+"/") {
					t.Errorf("%s reaches the edge package %s; the core must not depend on an edge (move the call to the edge, or pass the core what it needs)", p.ImportPath, d)
				}
			}
		}
		for _, i := range p.Imports {
			for _, e := range direct {
				if i == e {
					t.Errorf("%s imports %s; the core does no I/O of that kind", p.ImportPath, i)
				}
			}
		}
	}
}

// TestTheCheckCanFail shows the test sees an edge where there is one: the bot
// reaches go-github.
func TestTheCheckCanFail(t *testing.T) {
	for _, p := range list(t, "./internal/bot") {
		for _, d := range p.Deps {
			if strings.HasPrefix(d, "github.com/google/go-github/") {
				return
			}
		}
	}
	t.Fatal("go list -deps ./internal/bot does not show go-github: the layering test would not see an edge")
}

// TestDepguardListsTheCore keeps golangci-lint's depguard rule for the core (file by
// file, direct imports) and this test's list (the whole graph) naming the same packages:
// a package added to one and not the other would be checked only half.
func TestDepguardListsTheCore(t *testing.T) {
	raw, err := os.ReadFile("../../.golangci.yml")
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		Linters struct {
			Settings struct {
				Depguard struct {
					Rules map[string]struct {
						Files []string `yaml:"files"`
					} `yaml:"rules"`
				} `yaml:"depguard"`
			} `yaml:"settings"`
		} `yaml:"linters"`
	}
	if err := yaml.Unmarshal(raw, &cfg); err != nil {
		t.Fatalf(".golangci.yml: %v", err)
	}
	rule, ok := cfg.Linters.Settings.Depguard.Rules["core"]
	if !ok {
		t.Fatal(".golangci.yml has no depguard rule named core")
	}
	var guarded []string
	for _, f := range rule.Files {
		if strings.HasPrefix(f, "!") {
			continue
		}
		dir := strings.TrimSuffix(strings.TrimPrefix(f, "**/"), "/**")
		if dir == "checker" {
			dir = "checker/..."
		}
		guarded = append(guarded, dir)
	}
	want := slices.Clone(core)
	slices.Sort(want)
	slices.Sort(guarded)
	if !slices.Equal(guarded, want) {
		t.Errorf("depguard's core rule guards %v; the layering test's core is %v: list the same packages in both", guarded, want)
	}
}

// TestOneGoGitHubMajor keeps one major version of go-github in the binary (v60, the one
// the project chose): ghinstallation v2.10.0 is the last release built on v60, and later
// releases changed nothing but that requirement. A dependency that pulls another major
// in would carry a second copy of GitHub's API types.
func TestOneGoGitHubMajor(t *testing.T) {
	majors := map[string]bool{}
	for _, p := range list(t, "./cmd/contractbot") {
		for _, d := range p.Deps {
			if rest, ok := strings.CutPrefix(d, "github.com/google/go-github/"); ok {
				majors[strings.SplitN(rest, "/", 2)[0]] = true
			}
		}
	}
	if len(majors) != 1 || !majors["v60"] {
		t.Errorf("the binary links go-github %v; want v60 only (check what requires another major with 'go mod why -m')", slices.Sorted(maps.Keys(majors)))
	}
}
