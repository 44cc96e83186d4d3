package scaffold

import (
	"bytes"
	"path"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"go.yaml.in/yaml/v3"

	"github.com/contractbot/contractbot/docs/schemas"
	"github.com/contractbot/contractbot/internal/calendar"
	"github.com/contractbot/contractbot/internal/contract"
)

// TestFilesLintClean: on any day of a week the new repository loads with no
// diagnostic, its planned change is usable (ahead, outside the weekend freeze), its
// CODEOWNERS is the generated one, and every YAML file names its JSON Schema on the
// first line, with a relative path to a file that is there, and validates against it.
func TestFilesLintClean(t *testing.T) {
	for day := range 7 {
		now := time.Date(2026, 12, 1+day, 23, 30, 0, 0, time.UTC)
		fs, err := Files(Options{Org: "acme", Now: now})
		if err != nil {
			t.Fatal(err)
		}
		tree, err := contract.Load(contract.MemSource(fs))
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range tree.Diagnostics {
			t.Errorf("%s: %s", now.Weekday(), d)
		}
		if len(tree.Subjects) != 1 || len(tree.Subjects[0].Consumers) != 1 || len(tree.Entries) != 1 || len(tree.Freezes) != 1 {
			t.Fatalf("want one subject with one consumer, one entry, one freeze; got %d subjects, %d entries, %d freezes",
				len(tree.Subjects), len(tree.Entries), len(tree.Freezes))
		}
		if e, problems := calendar.FindEntry(tree, tree.Subjects[0].Subject, now); e == nil {
			t.Errorf("%s: the planned change cannot carry a change: %v", now.Weekday(), problems)
		}
		if got, want := fs[contract.CodeownersFile], contract.Codeowners(tree); !bytes.Equal(got, want) {
			t.Errorf("CODEOWNERS is not the generated one:\n%s", got)
		}
	}
}

func TestFilesValidateAgainstTheirSchemas(t *testing.T) {
	fs, err := Files(Options{Org: "acme", Now: time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, p := range Paths(fs) {
		name := schemas.ForFile(p)
		if name == "" {
			continue
		}
		checked++
		first, _, _ := strings.Cut(string(fs[p]), "\n")
		ref, ok := strings.CutPrefix(first, "# yaml-language-server: $schema=")
		if !ok {
			t.Errorf("%s: the first line does not name the JSON Schema: %q", p, first)
			continue
		}
		if target := path.Join(path.Dir(p), ref); target != SchemasDir+"/"+name || fs[target] == nil {
			t.Errorf("%s: $schema=%s resolves to %s, want %s/%s (written)", p, ref, target, SchemasDir, name)
		}
		c := jsonschema.NewCompiler()
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(fs[SchemasDir+"/"+name]))
		if err != nil {
			t.Fatal(err)
		}
		if err := c.AddResource(name, doc); err != nil {
			t.Fatal(err)
		}
		sch, err := c.Compile(name)
		if err != nil {
			t.Fatal(err)
		}
		var v any
		if err := yaml.Unmarshal(fs[p], &v); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if err := sch.Validate(v); err != nil {
			t.Errorf("%s does not validate against %s: %v", p, name, err)
		}
	}
	if checked != 5 {
		t.Errorf("%d YAML files checked against a schema, want 5", checked)
	}
}

func TestFilesRefuseABadOrganisation(t *testing.T) {
	for _, org := range []string{"", "acme/x", "@acme", "a b"} {
		if _, err := Files(Options{Org: org}); err == nil {
			t.Errorf("organisation %q accepted", org)
		}
	}
}

// TestWorkflowPinned: the workflow init writes installs the version it is given,
// compiled only when the cache keyed by that version misses; every action is pinned
// by a full commit SHA with its release tag in a comment; every job has a timeout.
func TestWorkflowPinned(t *testing.T) {
	fs, err := Files(Options{Org: "acme", Now: time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC), Version: "v1.2.3"})
	if err != nil {
		t.Fatal(err)
	}
	raw := fs[".github/workflows/contracts.yml"]
	var wf struct {
		Env  map[string]string `yaml:"env"`
		Jobs map[string]struct {
			TimeoutMinutes int `yaml:"timeout-minutes"`
			Steps          []struct {
				ID   string            `yaml:"id"`
				If   string            `yaml:"if"`
				Uses string            `yaml:"uses"`
				Run  string            `yaml:"run"`
				With map[string]string `yaml:"with"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal(raw, &wf); err != nil {
		t.Fatal(err)
	}
	if wf.Env["CONTRACTBOT_VERSION"] != "v1.2.3" {
		t.Errorf("CONTRACTBOT_VERSION is %q, want v1.2.3", wf.Env["CONTRACTBOT_VERSION"])
	}
	pinned := regexp.MustCompile(`(?m)^\s+(- )?uses: [\w-]+/[\w-]+@[0-9a-f]{40} # v\d+\.\d+\.\d+$`)
	if uses := len(regexp.MustCompile(`(?m)^\s+(- )?uses:`).FindAll(raw, -1)); len(pinned.FindAll(raw, -1)) != uses || uses == 0 {
		t.Errorf("%d of %d actions are pinned by commit with the tag in a comment:\n%s", len(pinned.FindAll(raw, -1)), uses, raw)
	}
	if len(wf.Jobs) == 0 {
		t.Fatal("no jobs")
	}
	for name, job := range wf.Jobs {
		if job.TimeoutMinutes <= 0 {
			t.Errorf("job %s has no timeout-minutes", name)
		}
		installs, cached := 0, false
		for _, s := range job.Steps {
			if s.ID == "contractbot" && strings.Contains(s.With["key"], "${{ env.CONTRACTBOT_VERSION }}") {
				cached = true
			}
			if strings.Contains(s.Run, "go install") || strings.HasPrefix(s.Uses, "actions/setup-go@") {
				installs++
				if s.If != "steps.contractbot.outputs.cache-hit != 'true'" {
					t.Errorf("job %s compiles on every run: %q has if %q", name, s.Run+s.Uses, s.If)
				}
			}
			if strings.Contains(s.Run, "@latest") {
				t.Errorf("job %s installs @latest: %s", name, s.Run)
			}
		}
		if installs > 0 && !cached {
			t.Errorf("job %s builds contractbot without a cache keyed by its version", name)
		}
	}
}

// TestWorkflowGateRunsWhateverLintSays: a removal that a consumer reads always fails
// lint, and that is exactly when the gate's comment, status and review requests
// matter: every step after lint in the check job runs unless the run was cancelled.
func TestWorkflowGateRunsWhateverLintSays(t *testing.T) {
	fs, err := Files(Options{Org: "acme", Now: time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC), Version: "v1.2.3"})
	if err != nil {
		t.Fatal(err)
	}
	var wf struct {
		Jobs map[string]struct {
			Steps []struct {
				Name string `yaml:"name"`
				If   string `yaml:"if"`
				Run  string `yaml:"run"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal(fs[".github/workflows/contracts.yml"], &wf); err != nil {
		t.Fatal(err)
	}
	lint, gate := -1, -1
	steps := wf.Jobs["check"].Steps
	for i, s := range steps {
		switch {
		case strings.HasPrefix(s.Run, "contractbot lint"):
			lint = i
		case strings.HasPrefix(s.Run, "contractbot check"):
			gate = i
		}
	}
	if lint < 0 || gate < lint {
		t.Fatalf("the check job has no lint step before the gate: lint %d, gate %d", lint, gate)
	}
	for _, s := range steps[lint+1:] {
		if !strings.Contains(s.If, "!cancelled()") {
			t.Errorf("step %q after lint has if: %q; it must run whatever lint says (if: ${{ !cancelled() }})", s.Name, s.If)
		}
	}
}
