package bot

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"maps"

	"github.com/contractbot/contractbot/internal/bot/slack"
	"github.com/contractbot/contractbot/internal/contract"
	"github.com/contractbot/contractbot/internal/verdict"
)

// The teams of indirect consumers (reached through lineage, not gated: the verdict's
// FYI list), and of consumers that read a field the change deprecates, each hear
// once per change of what reaches them: one Slack message in the
// team's channel, no reminder, no gate. What was told is kept in the signed state
// (State.Told: team -> fingerprint of what reached it), claimed like a reminder so
// two replicas do not both send it.

// fyiKey is the fingerprint of what a change does to a team's indirect consumers:
// the same consumers, subjects, fields, effects and paths give the same key, so a
// push that changes nothing for them is not told again.
func fyiKey(f verdict.FYI) string {
	data, _ := json.Marshal(f.Consumers)
	if len(f.Deprecated) > 0 {
		// Hashed only when present, so a lineage FYI keeps the key it was told under.
		dep, _ := json.Marshal(f.Deprecated)
		data = append(append(data, '\n'), dep...)
	}
	sum := sha256.Sum256(append([]byte(f.Team+"\n"), data...))
	return hex.EncodeToString(sum[:8])
}

// carriedTold keeps the FYI marks of the teams the report still tells, with what
// they were told: a team no longer reached, or reached differently, is told afresh.
func carriedTold(told map[string]string, r *verdict.Report) map[string]string {
	var out map[string]string
	for _, f := range r.FYI {
		if k, ok := told[f.Team]; ok {
			if out == nil {
				out = map[string]string{}
			}
			out[f.Team] = k
		}
	}
	return out
}

// dueFYIs are the report's FYIs not yet told (or told for another change) to teams
// with a Slack channel.
func dueFYIs(told map[string]string, r *verdict.Report, base *contract.Tree) []verdict.FYI {
	var out []verdict.FYI
	for _, f := range r.FYI {
		if t := base.Teams[f.Team]; t == nil || t.Slack == "" {
			continue
		}
		if told[f.Team] != fyiKey(f) {
			out = append(out, f)
		}
	}
	return out
}

// markTold records the FYIs claimed in st.
func markTold(st *State, fyis []verdict.FYI) {
	for _, f := range fyis {
		if st.Told == nil {
			st.Told = map[string]string{}
		}
		st.Told[f.Team] = fyiKey(f)
	}
}

// mergeTold adds to mine what another evaluation claimed (fresh) for the report's
// current FYIs.
func mergeTold(mine, fresh map[string]string, r *verdict.Report) map[string]string {
	out := maps.Clone(mine)
	for _, f := range r.FYI {
		if k, ok := fresh[f.Team]; ok && k == fyiKey(f) {
			if out == nil {
				out = map[string]string{}
			}
			out[f.Team] = k
		}
	}
	return out
}

// sendFYIs posts the claimed FYIs; one that fails is released, so the next
// evaluation sends it.
func (b *Bot) sendFYIs(ctx context.Context, ev *evaluation, fyis []verdict.FYI, done func(sentKey, note string, err error)) {
	for _, f := range fyis {
		ch := ev.loaded.Base.Teams[f.Team].Slack
		_, err := b.post(ctx, ch, slack.FYIMessage(*ev.pr, f), "", fyiSentKey(commentRef(*ev.pr), f))
		done(fyiSentKey(commentRef(*ev.pr), f), "", err)
		if err != nil {
			b.Metrics.failed("slack")
			ev.slackFailed(err)
			ev.log.Warn("Slack FYI failed; it is sent again at the next evaluation", "channel", ch, "team", f.Team, "err", err)
			continue
		}
		markTold(&ev.next, []verdict.FYI{f})
		ev.log.Info("FYI sent to an indirect consumer's team", "team", f.Team, "channel", ch)
	}
}
