package report

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/contractbot/contractbot/internal/history"
)

// Merge is one commit of the default branch that changed contracts/, as an edge read
// it: from the change events log (what the bot knew at the merge), from the Git
// history and the bot's comments on GitHub, or from the Git history alone (which
// knows only whether a pull request was named).
type Merge struct {
	Commit string
	// PullRequest is the pull request the commit's message names (0: none, a push
	// straight to the branch, around the bot).
	PullRequest int
	// Override: the merge went through on an admin's override, not on the verdict.
	Override bool
	// Unverified: the pull request has no verified state of the bot's (merged
	// before the bot ran, or its comment was edited): neither verdict nor override.
	Unverified bool
	// SignOffs are the teams' sign-offs at the merge (events only).
	SignOffs []SignOffTimes
}

// SignOffTimes is one team's sign-off of a merged pull request: when the bot asked
// it (requested) and when it approved (zero when it did not).
type SignOffTimes struct {
	Team                  string
	Requested, ApprovedAt time.Time
}

// Automation is how changes reached the default branch, and how long sign-offs took.
type Automation struct {
	// Source says where the figures come from: "change events FILE", "Git history
	// and the bot's comments on GitHub" or "Git history".
	Source string `json:"source"`
	// Merges counts the commits seen that changed contracts/; PullRequests those that
	// name a pull request, Direct those that do not.
	Merges       int `json:"merges"`
	PullRequests int `json:"pull_requests"`
	Direct       int `json:"direct"`
	// Verdict and Override split the pull requests (not from Git alone): merged on the
	// bot's verdict or on an admin's override; Rate is Verdict/(Verdict+Override).
	Verdict  *int `json:"verdict,omitempty"`
	Override *int `json:"override,omitempty"`
	// Unverified counts the pull requests without a verified state of the bot's.
	Unverified int      `json:"unverified,omitempty"`
	Rate       *float64 `json:"rate,omitempty"`
	// Latency is the sign-off latency (not from Git alone).
	Latency *Latency `json:"signoff_latency,omitempty"`
	// LeftOut counts the merges of the events log whose commits the branch no longer
	// has (a rewritten history): not counted above.
	LeftOut int `json:"left_out,omitempty"`
}

// Latency is the time from the bot's review request to the approving review, over
// every approved sign-off of the merged pull requests.
type Latency struct {
	SignOffs int           `json:"signoffs"`
	Median   time.Duration `json:"-"`
	P90      time.Duration `json:"-"`
	// MedianSeconds and P90Seconds are Median and P90 in whole seconds, for JSON.
	MedianSeconds int64 `json:"median_seconds"`
	P90Seconds    int64 `json:"p90_seconds"`
	// Unknown counts approved sign-offs without a usable request time: none (events
	// written before they carried it), or one later than the approval.
	Unknown int `json:"unknown"`
}

// Automate computes the automation figures of merges read from source; withVerdicts
// says whether the merges carry overrides and sign-offs (the events log does, the
// Git history does not). The median and the 90th percentile are nearest-rank.
func Automate(source string, merges []Merge, withVerdicts bool) *Automation {
	a := &Automation{Source: source, Merges: len(merges)}
	verdict, override := 0, 0
	var lat []time.Duration
	unknown := 0
	for _, m := range merges {
		if m.PullRequest == 0 {
			a.Direct++
			continue
		}
		a.PullRequests++
		if m.Unverified {
			a.Unverified++
			continue
		}
		if m.Override {
			override++
		} else {
			verdict++
		}
		for _, so := range m.SignOffs {
			switch {
			case so.ApprovedAt.IsZero():
			case so.Requested.IsZero() || so.ApprovedAt.Before(so.Requested):
				unknown++
			default:
				lat = append(lat, so.ApprovedAt.Sub(so.Requested))
			}
		}
	}
	if !withVerdicts {
		return a
	}
	a.Verdict, a.Override = &verdict, &override
	if verdict+override > 0 {
		rate := float64(verdict) / float64(verdict+override)
		a.Rate = &rate
	}
	a.Latency = &Latency{SignOffs: len(lat), Unknown: unknown}
	if len(lat) > 0 {
		slices.Sort(lat)
		a.Latency.Median, a.Latency.P90 = nearestRank(lat, 50), nearestRank(lat, 90)
		a.Latency.MedianSeconds, a.Latency.P90Seconds = int64(a.Latency.Median.Seconds()), int64(a.Latency.P90.Seconds())
	}
	return a
}

// GitMerges makes merges of the commits of the branch that changed contracts/, with
// the pull request prOf reads from each message (0: none).
func GitMerges(commits []history.Commit, prOf func(message string) int) []Merge {
	out := make([]Merge, len(commits))
	for i, c := range commits {
		out[i] = Merge{Commit: c.Hash, PullRequest: prOf(c.Message)}
	}
	return out
}

// GitSource is the Source of figures read from the Git history alone.
const GitSource = "Git history"

// EventsSource starts the Source of figures read from the change events log.
const EventsSource = "change events"

// nearestRank is the p-th percentile of sorted by the nearest-rank method.
func nearestRank(sorted []time.Duration, p int) time.Duration {
	rank := (p*len(sorted) + 99) / 100 // ceil(p/100 * n)
	return sorted[max(rank, 1)-1]
}

// notDerivedAutomation starts the line of NotDerived that SetAutomation removes.
const notDerivedAutomation = "automation rate and sign-off latency"

// SetAutomation adds the automation figures to the report; its section says what its
// source could not tell, so the line of NotDerived about them goes.
func (r *Health) SetAutomation(a *Automation) {
	r.Automation = a
	r.NotDerived = slices.DeleteFunc(r.NotDerived, func(s string) bool { return strings.HasPrefix(s, notDerivedAutomation) })
}

// AutomationLines renders the automation section: its title and its lines.
func AutomationLines(a *Automation) (string, []string) {
	title := fmt.Sprintf("Automation (from the %s): %d merge(s) that published versions", a.Source, a.Merges)
	if !strings.HasPrefix(a.Source, EventsSource) {
		title = fmt.Sprintf("Automation (from the %s): %d commit(s) of the branch changed contracts/", a.Source, a.Merges)
	}
	lines := []string{fmt.Sprintf("%d through a pull request, %d straight to the branch (around the bot)", a.PullRequests, a.Direct)}
	if a.LeftOut > 0 {
		lines = append(lines, fmt.Sprintf("%d merge(s) of the log left out: their commits are not on the branch's first-parent history (it was rewritten since)", a.LeftOut))
	}
	if a.Verdict == nil {
		lines = append(lines, "merged on the bot's verdict or on an override, and the sign-off latency: not in the Git history (contractbot report --events FILE reads them from the change events log, --github OWNER/NAME from the bot's comments)")
		return title, lines
	}
	rate := "no pull request merged"
	if a.Rate != nil {
		rate = fmt.Sprintf("%.0f%% automated", 100**a.Rate)
	}
	lines = append(lines, fmt.Sprintf("%d merged on the bot's verdict, %d on an admin's override: %s", *a.Verdict, *a.Override, rate))
	if a.Unverified > 0 {
		lines = append(lines, fmt.Sprintf("%d pull request(s) without a verified comment of the bot (merged before it ran, or the comment was edited) are not counted", a.Unverified))
	}
	l := a.Latency
	if l.SignOffs == 0 {
		lines = append(lines, "sign-off latency: no approved sign-off with a request time")
	} else {
		lines = append(lines, fmt.Sprintf("sign-off latency over %d approved sign-off(s), review request to approval: median %s, p90 %s", l.SignOffs, HumanDuration(l.Median), HumanDuration(l.P90)))
	}
	if l.Unknown > 0 {
		lines = append(lines, fmt.Sprintf("%d approved sign-off(s) without a usable request time (none, or later than the approval) are not counted", l.Unknown))
	}
	return title, lines
}

// HumanDuration writes a duration to the minute: "26 h", "3 h 5 min", "45 min".
func HumanDuration(d time.Duration) string {
	d = d.Round(time.Minute)
	h, m := int(d.Hours()), int(d.Minutes())%60
	switch {
	case h > 0 && m > 0:
		return fmt.Sprintf("%d h %d min", h, m)
	case h > 0:
		return fmt.Sprintf("%d h", h)
	}
	return fmt.Sprintf("%d min", m)
}
