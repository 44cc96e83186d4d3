package contract

import (
	"strings"
	"testing"
)

// TestTeamLead: lead: names where a team's monthly digest goes (a Slack member id or
// a channel) and the lead's login; anything else is a located error.
func TestTeamLead(t *testing.T) {
	teams := `teams:
  a:
    github: ["@acme/a"]
    lead: {slack: U024BE7LH, github: "@ann"}
  b:
    github: ["@acme/b"]
    lead: {slack: "#b-leads"}
  c:
    github: ["@acme/c"]
    lead: {slack: "@carol", github: carol}
  d:
    github: ["@acme/d"]
    lead: {github: "@dan"}
`
	tree, err := Load(MemSource{"contracts/teams.yaml": []byte(teams)})
	if err != nil {
		t.Fatal(err)
	}
	if l := tree.Teams["a"].Lead; l == nil || l.Slack != "U024BE7LH" || l.GitHub != "@ann" {
		t.Errorf("a's lead: %+v", l)
	}
	if l := tree.Teams["b"].Lead; l == nil || l.Slack != "#b-leads" {
		t.Errorf("b's lead: %+v", l)
	}
	if tree.Teams["c"].Lead != nil || tree.Teams["d"].Lead != nil {
		t.Errorf("c's and d's leads are invalid: %+v %+v", tree.Teams["c"].Lead, tree.Teams["d"].Lead)
	}
	var got []string
	for _, d := range tree.Diagnostics {
		got = append(got, d.String())
	}
	all := strings.Join(got, "\n")
	for _, want := range []string{
		`contracts/teams.yaml:10:19: error: lead slack "@carol" must be a Slack member id`,
		`contracts/teams.yaml:10:37: error: lead github "carol" must be a GitHub login written as @login.`,
		`contracts/teams.yaml:13:11: error: lead has no "slack" key`,
	} {
		if !strings.Contains(all, want) {
			t.Errorf("no %q in:\n%s", want, all)
		}
	}
}
