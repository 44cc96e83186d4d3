package contract

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"
)

var (
	reTeamID     = regexp.MustCompile(`^[a-z][a-z0-9-]{0,62}$`)
	reGitHubTeam = regexp.MustCompile(`^@[A-Za-z0-9-]+/[A-Za-z0-9_.-]+$`)
	reGitHubUser = regexp.MustCompile(`^@[A-Za-z0-9-]+$`)
	reChannel    = regexp.MustCompile(`^#[a-z0-9_-]{1,80}$`)
	reSlackUser  = regexp.MustCompile(`^[UW][A-Z0-9]{2,20}$`)
)

// loadTeams reads contracts/teams.yaml. It returns nil when the file is missing or
// unusable, so owner checks elsewhere do not pile up errors on top of that one.
func (l *loader) loadTeams() map[string]*Team {
	var ds Diagnostics
	defer func() { l.add(ds) }()
	f := &file{path: TeamsFile, diags: &ds}
	data, found, ok := l.read(f, TeamsFile, MaxYAMLBytes)
	if !found {
		if entries, err := l.src.ReadDir(ContractsDir); err == nil {
			for _, e := range entries {
				if !e.Dir && misnamed(e.Name, "teams.yaml") {
					p := ContractsDir + "/" + e.Name
					(&file{path: p, diags: &ds}).report(Pos{1, 1}, CodeFileName, "%s", renameTo(p, TeamsFile))
					return nil
				}
			}
		}
		f.report(Pos{1, 1}, CodeMissingFile, "there is no %s; create it with the teams that own subjects and consumers (see docs/contract-format.md).", TeamsFile)
		return nil
	}
	if !ok {
		return nil
	}
	o := f.parse(data)
	if o == nil {
		return nil
	}
	o.expect("teams.yaml", []string{"teams"}, nil)
	to := o.child("teams", "teams")
	if to == nil {
		return nil
	}
	teams := map[string]*Team{}
	for _, id := range to.names() {
		if !reTeamID.MatchString(id) {
			f.report(to.keys[id], CodeInvalidValue, "team id %q must start with a lower case letter and hold only lower case letters, digits and '-'.", id)
		}
		t := &Team{ID: id, Pos: to.keys[id]}
		teams[id] = t
		tf := to.child(id, fmt.Sprintf("team %q", id))
		if tf == nil {
			continue
		}
		tf.expect(fmt.Sprintf("team %q", id), []string{"github"}, []string{"name", "slack", "timezone", "escalation", "members", "lead"})
		t.Name, _ = tf.str("name")
		if hs, ok := tf.strList("github"); ok {
			if len(hs) == 0 {
				f.report(tf.valuePos("github"), CodeInvalidValue, "github is empty; list at least one GitHub team (@org/team) or user (@login).")
			}
			for _, h := range hs {
				if checkHandle(f, h) {
					t.GitHub = append(t.GitHub, h.val)
				}
			}
		}
		if ch, ok := tf.str("slack"); ok && checkChannel(f, tf.valuePos("slack"), ch) {
			t.Slack = ch
		}
		if tz, ok := tf.str("timezone"); ok {
			if _, err := time.LoadLocation(tz); err != nil || tz == "" || tz == "Local" {
				f.report(tf.valuePos("timezone"), CodeInvalidValue, "timezone %q is not an IANA time zone name; write one like Europe/Berlin or UTC.", tz)
			} else {
				t.Timezone = tz
			}
		}
		if ms, ok := tf.strList("members"); ok {
			for _, m := range ms {
				switch {
				case !reGitHubUser.MatchString(m.val):
					f.report(m.pos, CodeInvalidValue, "member %q must be a GitHub login written as @login (members lists the people in the team's GitHub teams).", m.val)
				case slices.ContainsFunc(t.Members, func(s string) bool { return strings.EqualFold(s, m.val) }):
					f.report(m.pos, CodeInvalidValue, "member %q is listed twice in team %q; remove one.", m.val, id)
				default:
					t.Members = append(t.Members, m.val)
				}
			}
		}
		t.Lead = readLead(f, tf)
		if eo := tf.child("escalation", "escalation"); eo != nil {
			eo.expect("escalation", nil, []string{"slack", "users"})
			t.Escalation = &Escalation{}
			if ch, ok := eo.str("slack"); ok && checkChannel(f, eo.valuePos("slack"), ch) {
				t.Escalation.Slack = ch
			}
			if us, ok := eo.strList("users"); ok {
				for _, u := range us {
					if reGitHubUser.MatchString(u.val) {
						t.Escalation.Users = append(t.Escalation.Users, u.val)
					} else {
						f.report(u.pos, CodeInvalidValue, "escalation user %q must be a GitHub login written as @login.", u.val)
					}
				}
			}
		}
	}
	return teams
}

func checkHandle(f *file, h item) bool {
	if reGitHubTeam.MatchString(h.val) || reGitHubUser.MatchString(h.val) {
		return true
	}
	hint := ""
	if len(h.val) > 0 && h.val[0] != '@' {
		hint = fmt.Sprintf(" Did you mean %q?", "@"+h.val)
	}
	f.report(h.pos, CodeInvalidValue, "GitHub handle %q must be @org/team for a team or @login for a user.%s", h.val, hint)
	return false
}

func checkChannel(f *file, p Pos, ch string) bool {
	if reChannel.MatchString(ch) {
		return true
	}
	f.report(p, CodeInvalidValue, "Slack channel %q must be written as #name in lower case (letters, digits, '-' and '_').", ch)
	return false
}

// readLead reads a team's lead: slack (a member id or a channel), github (a login).
func readLead(f *file, tf *object) *Lead {
	lo := tf.child("lead", "lead")
	if lo == nil {
		return nil
	}
	lo.expect("lead", []string{"slack"}, []string{"github"})
	l := &Lead{}
	if ch, ok := lo.str("slack"); ok {
		switch {
		case reSlackUser.MatchString(ch):
			l.Slack = ch
		case strings.HasPrefix(ch, "#"):
			if checkChannel(f, lo.valuePos("slack"), ch) {
				l.Slack = ch
			}
		default:
			f.report(lo.valuePos("slack"), CodeInvalidValue, "lead slack %q must be a Slack member id (like U024BE7LH: the lead's profile, More, Copy member ID) or a channel written as #name.", ch)
		}
	}
	if gh, ok := lo.str("github"); ok {
		if reGitHubUser.MatchString(gh) {
			l.GitHub = gh
		} else {
			f.report(lo.valuePos("github"), CodeInvalidValue, "lead github %q must be a GitHub login written as @login.", gh)
		}
	}
	if l.Slack == "" {
		return nil
	}
	return l
}
