package githubapi

import (
	"bytes"
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// manifestPath is the GitHub App manifest the docs create the App from
// (docs/operations.md, "As a GitHub App").
const manifestPath = "../../../deploy/github-app/manifest.json"

// apiPermissions is the permission each go-github method the bot calls needs, as
// GitHub's REST reference lists it for GitHub Apps ("" for none: the App's own
// endpoints, called with its JWT, and GET /user, which only a token's user calls).
// A method missing here fails TestAppManifest: add it, with its permission.
var apiPermissions = map[string]permission{
	"Apps.Get":                                {},
	"Apps.FindRepositoryInstallation":         {},
	"Users.Get":                               {},
	"Checks.ListCheckRunsForRef":              {"checks", "read"},
	"Checks.CreateCheckRun":                   {"checks", "write"},
	"Checks.UpdateCheckRun":                   {"checks", "write"},
	"Repositories.ListStatuses":               {"statuses", "read"},
	"Repositories.CreateStatus":               {"statuses", "write"},
	"PullRequests.Get":                        {"pull_requests", "read"},
	"PullRequests.List":                       {"pull_requests", "read"},
	"PullRequests.ListPullRequestsWithCommit": {"pull_requests", "read"},
	"Repositories.GetBranch":                  {"contents", "read"},
	"PullRequests.ListReviews":                {"pull_requests", "read"},
	"PullRequests.RequestReviewers":           {"pull_requests", "write"},
	"Issues.ListIssueTimeline":                {"issues", "read"},
	"Issues.ListComments":                     {"issues", "read"},
	"Issues.CreateComment":                    {"issues", "write"},
	"Issues.EditComment":                      {"issues", "write"},
	"Issues.AddLabelsToIssue":                 {"issues", "write"},
	"Issues.RemoveLabelForIssue":              {"issues", "write"},
	"Teams.ListTeamMembersBySlug":             {"members", "read"},
}

// eventPermissions is the permission a webhook event needs before an App may
// subscribe to it.
var eventPermissions = map[string]permission{
	"pull_request":        {"pull_requests", "read"},
	"pull_request_review": {"pull_requests", "read"},
	"issue_comment":       {"issues", "read"},
	"push":                {"contents", "read"},
	"status":              {"statuses", "read"},
	"check_run":           {"checks", "read"},
	"check_suite":         {"checks", "read"},
	"membership":          {"members", "read"},
}

type permission struct{ scope, level string }

// goGithubServices are the fields of go-github's Client through which it calls the API.
var goGithubServices = []string{"Actions", "Apps", "Checks", "Git", "Issues", "Organizations",
	"PullRequests", "Reactions", "Repositories", "Search", "Teams", "Users"}

// TestAppManifest: the App manifest asks for exactly the permissions the bot's API
// calls need (the go-github methods called in the packages serve runs, read from
// their source), Git fetches (contents: read) and metadata, and subscribes to exactly
// the events Bot.Route handles (internal/bot/router.go), each of which its permissions allow.
func TestAppManifest(t *testing.T) {
	raw, err := os.ReadFile(manifestPath)
	if err != nil {
		t.Fatal(err)
	}
	var m struct { // the manifest flow's parameters, decoded strictly: a misspelt one fails
		Name           string `json:"name"`
		URL            string `json:"url"`
		Description    string `json:"description"`
		HookAttributes struct {
			URL    string `json:"url"`
			Active bool   `json:"active"`
		} `json:"hook_attributes"`
		RedirectURL        string            `json:"redirect_url"`
		Public             bool              `json:"public"`
		DefaultPermissions map[string]string `json:"default_permissions"`
		DefaultEvents      []string          `json:"default_events"`
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		t.Fatalf("%s: %v", manifestPath, err)
	}
	if m.Name == "" || !m.HookAttributes.Active || !strings.HasSuffix(m.HookAttributes.URL, "/webhook") {
		t.Errorf("the manifest needs a name and an active webhook at https://HOST/webhook: %+v", m)
	}

	want := map[string]string{"metadata": "read", "contents": "read"} // every App; Git fetches
	calls := goGithubCalls(t, ".", "..", "../../cli")
	if len(calls) == 0 {
		t.Fatal("found no go-github calls: has the client moved?")
	}
	for _, c := range slices.Sorted(maps.Keys(apiPermissions)) {
		if _, ok := calls[c]; !ok {
			t.Errorf("apiPermissions names %s, which the code no longer calls: remove it (and its permission from %s if nothing else needs it)", c, manifestPath)
		}
	}
	for _, c := range slices.Sorted(maps.Keys(calls)) {
		p, ok := apiPermissions[c]
		if !ok {
			t.Errorf("%s calls %s, whose permission this test does not know: add it to apiPermissions and to %s", calls[c], c, manifestPath)
			continue
		}
		grant(want, p)
	}
	events := routedEvents(t, "../router.go")
	for _, e := range events {
		p, ok := eventPermissions[e]
		if !ok {
			t.Errorf("Bot.Route handles %q, whose permission this test does not know: add it to eventPermissions", e)
			continue
		}
		if !allows(want, p) {
			t.Errorf("the event %s needs %s: %s, which no API call asks for", e, p.scope, p.level)
			grant(want, p)
		}
	}
	if !maps.Equal(m.DefaultPermissions, want) {
		t.Errorf("%s default_permissions:\n got %v\nwant %v (what the code calls)", manifestPath, m.DefaultPermissions, want)
	}
	if !slices.Equal(m.DefaultEvents, events) {
		t.Errorf("%s default_events:\n got %v\nwant %v (the events Bot.Route handles, sorted)", manifestPath, m.DefaultEvents, events)
	}
}

func grant(perms map[string]string, p permission) {
	if p.scope == "" || allows(perms, p) {
		return
	}
	perms[p.scope] = p.level
}

func allows(perms map[string]string, p permission) bool {
	have := perms[p.scope]
	return p.scope == "" || have == p.level || have == "write"
}

// goGithubCalls lists the go-github service methods (Service.Method) called in the
// non-test files of dirs, with where each is first called.
func goGithubCalls(t *testing.T, dirs ...string) map[string]string {
	t.Helper()
	calls := map[string]string{}
	fset := token.NewFileSet()
	for _, dir := range dirs {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		if len(files) == 0 {
			t.Fatalf("%s holds no Go file: has the package moved?", dir)
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			file, err := parser.ParseFile(fset, f, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			ast.Inspect(file, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				method, ok := call.Fun.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				service, ok := method.X.(*ast.SelectorExpr)
				if !ok || !slices.Contains(goGithubServices, service.Sel.Name) {
					return true
				}
				name := service.Sel.Name + "." + method.Sel.Name
				if _, seen := calls[name]; !seen {
					calls[name] = fset.Position(call.Pos()).String()
				}
				return true
			})
		}
	}
	return calls
}

// routedEvents lists, sorted, the event names of the switch in Bot.Route.
func routedEvents(t *testing.T, path string) []string {
	t.Helper()
	file, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var events []string
	for _, d := range file.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Name.Name != "Route" {
			continue
		}
		ast.Inspect(fn.Body, func(n ast.Node) bool {
			if cc, ok := n.(*ast.CaseClause); ok {
				for _, e := range cc.List {
					if lit, ok := e.(*ast.BasicLit); ok && lit.Kind == token.STRING {
						s, _ := strconv.Unquote(lit.Value)
						events = append(events, s)
					}
				}
			}
			return true
		})
	}
	if len(events) == 0 {
		t.Fatalf("%s: found no events in Bot.Route", path)
	}
	slices.Sort(events)
	return events
}
