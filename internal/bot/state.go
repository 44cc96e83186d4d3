package bot

import (
	"github.com/contractbot/contractbot/internal/bot/memory"
	"github.com/contractbot/contractbot/internal/verdict"
)

// The bot's memory and its protocol live in internal/bot/memory; these are its public names.
type (
	// State is what the bot remembers about a pull request between events.
	State = memory.State
	// SignOffSummary is one team's sign-off as the last evaluation saw it.
	SignOffSummary = memory.SignOffSummary
	// SlackThread is one Slack message the bot keeps up to date.
	SlackThread = memory.SlackThread
)

// Marker starts the bot's one sticky comment on a pull request.
const Marker = memory.Marker

// StateVersion is the version of the state block's format.
const StateVersion = memory.StateVersion

// EditTolerance is how much later than its signed time the bot's comment may have
// been updated and still be the bot's own write (memory.EditTolerance).
const EditTolerance = memory.EditTolerance

// The memory's functions and errors (internal/bot/memory).
var (
	DeriveStateKey = memory.DeriveStateKey
	RenderComment  = memory.RenderComment
	ParseState     = memory.ParseState
	IsBotComment   = memory.IsBotComment
	ErrNoState     = memory.ErrNoState
	ErrSignature   = memory.ErrSignature
	ErrNoKey       = memory.ErrNoKey
)

// reminderKey keys a team's reminder marks by the requirement they remind of.
func reminderKey(team, fingerprint string) string { return team + "@" + fingerprint }

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
