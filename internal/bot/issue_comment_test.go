package bot

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/contractbot/contractbot/internal/server"
)

func TestParseCommand(t *testing.T) {
	for body, want := range map[string]string{
		"/contractbot recheck":                             "recheck|",
		"LGTM\n  /contractbot override  hotfix for INC-42": "override|hotfix for INC-42",
		"/contractbotx recheck":                            "",
		"see `/contractbot recheck`":                       "",
		"/contractbot":                                     "|",
		// Code and quotations show the command; they do not give it.
		"an admin would write:\n```\n/contractbot override <reason>\n```":         "",
		"an admin would write:\n~~~sh\n/contractbot override <reason>\n~~~":       "",
		"````\n```\n/contractbot override inner\n````":                            "",
		"> /contractbot override quoted":                                          "",
		">/contractbot override quoted":                                           "",
		"  > /contractbot override quoted":                                        "",
		"text\n\n    /contractbot override indented code":                         "",
		"\t/contractbot override tab-indented code":                               "",
		"```\n/contractbot override in code\n```\n/contractbot recheck":           "recheck|",
		"~~~\n```\n/contractbot override still in code\n~~~\n/contractbot remind": "remind|",
		"   /contractbot recheck":                                                 "recheck|",
		"/contractbot override hotfix\r\nthanks":                                  "override|hotfix",
	} {
		cmd, ok := ParseCommand(body)
		got := ""
		if ok {
			got = cmd.Name + "|" + cmd.Arg
		}
		if got != want {
			t.Errorf("%q: %q, want %q", body, got, want)
		}
	}
}

// TestCommandsInComments: recheck, override (refused for a non-admin, recorded for an
// admin) and an unknown command, through issue_comment webhooks.
func TestCommandsInComments(t *testing.T) {
	remote, base, head := remoteWithChange(t)
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	fake, n := fakeWithPR(t, remote, base, head, &now)
	fake.AddTeamMember("acme", "contract-admins", "boss")
	b := botOn(t, fake, &now, nil)
	b.AdminTeam = "acme/contract-admins"
	ctx := context.Background()
	say := func(login, body string) {
		t.Helper()
		id := fake.AddComment("acme", "contracts", n, login, body)
		payload, err := jsonOf(fake.IssueCommentEvent("acme", "contracts", n, id, "created"))
		if err != nil {
			t.Fatal(err)
		}
		job, err := b.Route(server.Delivery{ID: body, Event: "issue_comment", Payload: payload})
		if err != nil || job == nil {
			t.Fatalf("%q: job %v, err %v", body, job, err)
		}
		if err := job.Run(ctx); err != nil {
			t.Errorf("%q: %v", body, err)
		}
	}
	conclusion := func() string { return fake.CheckRuns("acme", "contracts", head.String())[0].GetConclusion() }
	bodies := func() string {
		var out []string
		for _, c := range fake.Comments("acme", "contracts", n) {
			out = append(out, c.GetBody())
		}
		return strings.Join(out, "\n---\n")
	}

	say("olivia", "/contractbot recheck")
	if conclusion() != ConclusionActionRequired {
		t.Fatalf("after recheck: %s", conclusion())
	}
	say("olivia", "/contractbot override we need it now")
	if conclusion() != ConclusionActionRequired || !strings.Contains(bodies(), "only members of acme/contract-admins may override") {
		t.Errorf("a non-admin's override: check %s\n%s", conclusion(), bodies())
	}
	say("boss", "/contractbot override hotfix for INC-42")
	if conclusion() != ConclusionSuccess {
		t.Errorf("after the admin's override: %s", conclusion())
	}
	var sticky string
	for _, c := range fake.Comments("acme", "contracts", n) {
		if IsBotComment(c.GetBody()) {
			sticky = c.GetBody()
		}
	}
	st, err := ParseState(testKey, "acme/contracts#"+strconv.Itoa(n), sticky)
	if err != nil || st.Override == nil || st.Override.By != "boss" || st.Override.Reason != "hotfix for INC-42" {
		t.Errorf("override not recorded: %+v %v", st.Override, err)
	}
	if !strings.Contains(sticky, "hotfix for INC-42") {
		t.Errorf("the comment does not show the override:\n%s", sticky)
	}
	say("olivia", "/contractbot frobnicate")
	if !strings.Contains(bodies(), "I do not know `/contractbot frobnicate`") {
		t.Errorf("no help for an unknown command:\n%s", bodies())
	}
	// Comments without a command, and the bot's own, start nothing.
	for _, body := range []string{"looks good", HelpText} {
		id := fake.AddComment("acme", "contracts", n, "olivia", body)
		payload, _ := jsonOf(fake.IssueCommentEvent("acme", "contracts", n, id, "created"))
		if job, err := b.Route(server.Delivery{Event: "issue_comment", Payload: payload}); job != nil || err != nil {
			t.Errorf("%q started a job (%v)", body, err)
		}
	}
}

func jsonOf(v any) ([]byte, error) { return json.Marshal(v) }

// TestOverrideShownInCodeIsNotGiven: an admin's comment that explains the override
// command in a code block, or quotes someone's, does not override the gate.
func TestOverrideShownInCodeIsNotGiven(t *testing.T) {
	g, b := openGate(t, amountToString)
	for _, body := range []string{
		"Please don't merge this yet. If it is ever needed, an admin would write:\n```\n/contractbot override <reason>\n```\nand it is then recorded.",
		"> /contractbot override because I said so\n\nNo, not like that.",
		"Example:\n\n    /contractbot override <reason>",
	} {
		id := g.fake.AddComment("acme", "contracts", g.n, "boss", body)
		payload, err := jsonOf(g.fake.IssueCommentEvent("acme", "contracts", g.n, id, "created"))
		if err != nil {
			t.Fatal(err)
		}
		job, err := b.Route(server.Delivery{ID: strconv.FormatInt(id, 10), Event: "issue_comment", Payload: payload})
		if err != nil || job != nil {
			t.Errorf("%q: job %v, err %v; want no job", body, job, err)
		}
		g.advance(time.Minute)
		g.evaluate(b)
		if c := g.conclusion(); c != ConclusionActionRequired {
			t.Errorf("after the admin's comment %q: check %s, want %s", body, c, ConclusionActionRequired)
		}
	}
}
