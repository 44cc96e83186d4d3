package bot

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"time"

	"github.com/contractbot/contractbot/internal/verdict"
)

// Marker starts the bot's one sticky comment on a pull request; the bot finds its
// comment by it and edits it in place.
const Marker = "<!-- contractbot:comment -->"

// StateVersion is the version of the state block's format.
const StateVersion = 1

// State is what the bot remembers about a pull request between events. It lives in a
// hidden block at the end of the sticky comment (the bot keeps no database): any
// replica reads it back from GitHub.
type State struct {
	Version     int       `json:"v"`
	HeadSHA     string    `json:"head"`
	EvaluatedAt time.Time `json:"at"`
	Class       string    `json:"class"`
	// Teams is the sign-off state per team: fingerprint, since, requested at.
	Teams map[string]verdict.TeamState `json:"teams,omitempty"`
	// Reminded lists, per team, the reminder marks already sent ("12h", "2h",
	// "overdue"), so no replica sends one twice.
	Reminded map[string][]string `json:"reminded,omitempty"`
	Override *verdict.Override   `json:"override,omitempty"`
	// Slack holds, per team, the pull request's message in the team's channel, which
	// is edited in place; reminders are threaded under it.
	Slack map[string]SlackThread `json:"slack,omitempty"`
	// Announced lists the producer announcements already made ("all-signed-off").
	Announced []string `json:"announced,omitempty"`
	// Subjects are the subjects the pull request changes, for the subject pages.
	Subjects []string `json:"subjects,omitempty"`
	// SignOffs summarises the sign-offs as last evaluated, for the sign-off pages.
	SignOffs []SignOffSummary `json:"signoffs,omitempty"`
}

// SignOffSummary is one team's sign-off as the last evaluation saw it.
type SignOffSummary struct {
	Team       string    `json:"team"`
	Status     string    `json:"status"`
	Deadline   time.Time `json:"deadline"`
	ApprovedBy string    `json:"approved_by,omitempty"`
}

// SlackThread is one Slack message the bot keeps up to date.
type SlackThread struct {
	Channel string `json:"channel"`
	TS      string `json:"ts"`
	// Digest identifies the content last posted, so an unchanged message is not edited.
	Digest string `json:"digest"`
}

var reState = regexp.MustCompile(`<!-- contractbot:state ([A-Za-z0-9+/=]+) -->`)

// RenderComment builds the sticky comment: the marker, the report's Markdown and the
// state block. The state is base64-encoded JSON, so nothing in it can end the HTML
// comment early or show in the rendered page.
func RenderComment(markdown string, st State) (string, error) {
	st.Version = StateVersion
	data, err := json.Marshal(st)
	if err != nil {
		return "", fmt.Errorf("encode bot state: %w", err)
	}
	return Marker + "\n" + markdown + "\n\n<!-- contractbot:state " + base64.StdEncoding.EncodeToString(data) + " -->\n", nil
}

// IsBotComment reports whether a comment body is the bot's sticky comment.
func IsBotComment(body string) bool {
	return len(body) >= len(Marker) && body[:len(Marker)] == Marker
}

// ErrNoState is returned by ParseState for a comment without a state block.
var ErrNoState = errors.New("no state block")

// ParseState reads the state block back from a sticky comment. A comment edited by a
// person so that the block no longer decodes gives an error: the bot then starts from
// a fresh state (and says so), never from a guess.
func ParseState(body string) (State, error) {
	m := reState.FindAllStringSubmatch(body, -1)
	if len(m) == 0 {
		return State{}, ErrNoState
	}
	data, err := base64.StdEncoding.DecodeString(m[len(m)-1][1])
	if err != nil {
		return State{}, fmt.Errorf("decode bot state: %w", err)
	}
	var st State
	if err := json.Unmarshal(data, &st); err != nil {
		return State{}, fmt.Errorf("decode bot state: %w", err)
	}
	if st.Version != StateVersion {
		return State{}, fmt.Errorf("bot state version %d, this bot reads %d", st.Version, StateVersion)
	}
	return st, nil
}

// Labels the bot manages: exactly one class label mirrors the verdict, plus the
// overdue label while a sign-off is late.
const (
	LabelSafe       = "contract: safe"
	LabelCompatible = "contract: compatible"
	LabelBreaking   = "contract: breaking"
	LabelOverdue    = "contract: sign-off overdue"
)

// ManagedLabels lists every label the bot adds or removes.
var ManagedLabels = []string{LabelSafe, LabelCompatible, LabelBreaking, LabelOverdue}

// WantLabels returns the bot's labels for a report.
func WantLabels(r *verdict.Report) []string {
	var out []string
	switch r.Class {
	case verdict.Breaking:
		out = append(out, LabelBreaking)
	case verdict.Compatible:
		out = append(out, LabelCompatible)
	default:
		out = append(out, LabelSafe)
	}
	for _, s := range r.SignOffs {
		if s.Status == verdict.Overdue {
			out = append(out, LabelOverdue)
			break
		}
	}
	return out
}

// LabelChanges compares the labels a pull request has with the ones the bot wants:
// what to add and what to remove. Labels the bot does not manage are left alone.
func LabelChanges(have, want []string) (add, remove []string) {
	h, w := map[string]bool{}, map[string]bool{}
	for _, l := range have {
		h[l] = true
	}
	for _, l := range want {
		w[l] = true
		if !h[l] {
			add = append(add, l)
		}
	}
	for _, l := range ManagedLabels {
		if h[l] && !w[l] {
			remove = append(remove, l)
		}
	}
	return add, remove
}

// Check run conclusions.
const (
	ConclusionSuccess        = "success"
	ConclusionActionRequired = "action_required"
	ConclusionFailure        = "failure"
)

// Conclusion maps a report to the check run's conclusion: failure when the contract
// files have errors or a subject cannot be evaluated, action_required while the change
// waits for what it needs (sign-offs, a calendar entry, a freeze to end), success when
// nothing blocks it (or an override waived it).
func Conclusion(r *verdict.Report) string {
	for _, s := range r.Subjects {
		if s.Error != "" {
			return ConclusionFailure
		}
	}
	switch {
	case len(r.Lint) > 0 && r.Override == nil:
		return ConclusionFailure
	case r.Ready:
		return ConclusionSuccess
	}
	return ConclusionActionRequired
}
