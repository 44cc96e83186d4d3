package bot

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/contractbot/contractbot/internal/bot/memory"
	"github.com/contractbot/contractbot/internal/bot/slack"
	"github.com/contractbot/contractbot/internal/contract"
	"github.com/contractbot/contractbot/internal/verdict"
)

// Notifier posts and edits Slack messages (internal/bot/slack's Client). Slack being down
// never blocks GitHub updates: the bot logs a failure and tries again at the next
// evaluation (a reminder's mark is kept only once every channel got it).
type Notifier interface {
	// Post sends msg to channel, in the thread of threadTS when it is not empty, and
	// returns the new message's timestamp.
	Post(ctx context.Context, channel string, msg slack.Message, threadTS string) (string, error)
	// Update replaces the message at ts.
	Update(ctx context.Context, channel, ts string, msg slack.Message) error
}

// DefaultClaimSettle is how long an evaluation waits after claiming Slack messages in
// the comment before reading the claim back (Bot.ClaimSettle).
const DefaultClaimSettle = time.Second

// outbox is what an evaluation sends to Slack.
type outbox struct {
	edits     []slack.Message // team messages whose facts changed, by index of teams
	editTeams []string
	// claimed: sent once across replicas, agreed on in the comment first.
	threads   []*verdict.SignOff // teams without a message yet
	reminders []Reminder
	announce  bool
	fyis      []verdict.FYI // indirect consumers' teams to tell
	// manual reminders (/contractbot remind) are sent when asked, unclaimed.
	manual []Reminder
}

func (o *outbox) claims() bool { return len(o.threads)+len(o.reminders)+len(o.fyis) > 0 || o.announce }

// notify keeps Slack in line with the report and records what it sent in ev.next.
// Each team whose sign-off is required has one message about the pull request in its
// channel, edited in place when the facts change; reminders and the escalation due
// now are threaded under it (an escalation also goes to the team's escalation channel
// and the producers' channels); the producers hear once when every sign-off is in.
//
// The teams of indirect consumers hear once per change of what reaches them
// (notify_fyi.go).
//
// Every message that must go out once (a team's first message, a reminder, an
// escalation, the all-signed-off note, an FYI) is first claimed in the bot's comment: the
// comment is read afresh, what another replica already claimed is dropped, the
// claims are written with this evaluation's token, and after ClaimSettle the comment
// is read back: only the evaluation whose token is there sends. A claim whose message
// fails is released in the state converge writes, so the next evaluation sends it.
func (b *Bot) notify(ctx context.Context, ev *evaluation, opt evalOptions) {
	if b.Notify == nil {
		return
	}
	out := b.plan(ev, opt)
	if out.claims() { // what Slack shows sent is not sent again (sent.go)
		b.recall(ctx, ev, out)
		out = b.plan(ev, opt)
	}
	if out.claims() && !b.claim(ctx, ev, &out) {
		out.threads, out.reminders, out.announce, out.fyis = nil, nil, false, nil
	}
	b.send(ctx, ev, out)
}

// carried is the Slack memory of the previous state that still applies: threads,
// announcements, and the reminder marks of the requirements that are still the same.
func carried(st *State, r *verdict.Report) State {
	var next State
	if st == nil {
		return next
	}
	next.Slack, next.Announced, next.Claim = maps.Clone(st.Slack), slices.Clone(st.Announced), st.Claim
	next.Told = carriedTold(st.Told, r)
	for _, so := range r.SignOffs {
		k := reminderKey(so.Team, so.Fingerprint)
		if marks, ok := st.Reminded[k]; ok {
			if next.Reminded == nil {
				next.Reminded = map[string][]string{}
			}
			next.Reminded[k] = slices.Clone(marks)
		}
	}
	return next
}

// plan works out what to send now.
func (b *Bot) plan(ev *evaluation, opt evalOptions) outbox {
	r, base := ev.report, ev.loaded.Base
	var out outbox
	for _, so := range r.SignOffs {
		team := base.Teams[so.Team]
		if team == nil || team.Slack == "" {
			continue
		}
		msg := slack.TeamMessage(*ev.pr, so)
		th, ok := ev.next.Slack[so.Team]
		switch {
		case ok && th.TS == "": // claimed by an evaluation that has not said where it went
		case ok && th.Channel == team.Slack && th.Digest != msg.Digest():
			out.edits, out.editTeams = append(out.edits, msg), append(out.editTeams, so.Team)
		case !ok || th.Channel != team.Slack:
			out.threads = append(out.threads, so)
		}
	}
	if opt.remindAll {
		for _, so := range r.SignOffs {
			if so.Status != verdict.Approved {
				out.manual = append(out.manual, Reminder{Team: so.Team, Mark: "manual", Deadline: so.Deadline, SignOff: so})
			}
		}
	} else {
		out.reminders = DueReminders(r, sentByTeam(ev.next.Reminded, r), r.Now, b.marks())
	}
	out.announce = allApproved(r) && len(producerChannels(base, r)) > 0 && !slices.Contains(ev.next.Announced, announcementKey(r))
	out.fyis = dueFYIs(ev.next.Told, r, base)
	return out
}

func (b *Bot) marks() []time.Duration {
	if b.Marks == nil {
		return DefaultMarks
	}
	return b.Marks
}

// sentByTeam reads the marks sent for each team's current requirement.
func sentByTeam(reminded map[string][]string, r *verdict.Report) map[string][]string {
	out := map[string][]string{}
	for _, so := range r.SignOffs {
		out[so.Team] = reminded[reminderKey(so.Team, so.Fingerprint)]
	}
	return out
}

// announcementKey names the all-signed-off note of one set of requirements: when
// the requirements change and are all met again, the producers hear again.
func announcementKey(r *verdict.Report) string {
	var fps []string
	for _, so := range r.SignOffs {
		fps = append(fps, so.Team+"="+so.Fingerprint)
	}
	sum := sha256.Sum256([]byte(strings.Join(fps, ",")))
	return "all-signed-off@" + hex.EncodeToString(sum[:6])
}

// markClaims records the out's claims in st (reminder marks, thread placeholders,
// the announcement).
func (b *Bot) markClaims(st *State, r *verdict.Report, out outbox) {
	for _, so := range out.threads {
		if st.Slack == nil {
			st.Slack = map[string]SlackThread{}
		}
		st.Slack[so.Team] = SlackThread{}
	}
	for _, rem := range out.reminders {
		k := reminderKey(rem.Team, rem.SignOff.Fingerprint)
		if st.Reminded == nil {
			st.Reminded = map[string][]string{}
		}
		st.Reminded[k] = MarkSent(map[string][]string{rem.Team: st.Reminded[k]}, rem, b.marks())[rem.Team]
	}
	if out.announce && !slices.Contains(st.Announced, announcementKey(r)) {
		st.Announced = append(st.Announced, announcementKey(r))
	}
	markTold(st, out.fyis)
}

// claim agrees with the other replicas, through the comment, on who sends out's
// claimed messages; false means another evaluation sends them.
func (b *Bot) claim(ctx context.Context, ev *evaluation, out *outbox) bool {
	// What another replica claimed since this evaluation read the comment is theirs.
	priorClaim := ""
	if ev.mem.State != nil {
		priorClaim = ev.mem.State.Claim
	}
	if m, err := b.reread(ctx, ev); err != nil {
		ev.log.Warn("could not read the comment back", "err", err)
	} else if m.State != nil {
		fresh := m.State
		othersClaimed := fresh.Claim != "" && fresh.Claim != priorClaim
		ev.next.Slack, ev.next.Announced = mergeThreads(ev.next.Slack, fresh.Slack), mergeList(ev.next.Announced, fresh.Announced)
		ev.next.Claim = fresh.Claim // a claim in flight stays where its evaluation reads it back
		ev.next.Told = mergeTold(ev.next.Told, fresh.Told, ev.report)
		for k, marks := range fresh.Reminded {
			if _, current := ev.next.Reminded[k]; current || slices.ContainsFunc(ev.report.SignOffs, func(so *verdict.SignOff) bool { return reminderKey(so.Team, so.Fingerprint) == k }) {
				if ev.next.Reminded == nil {
					ev.next.Reminded = map[string][]string{}
				}
				ev.next.Reminded[k] = mergeList(ev.next.Reminded[k], marks)
			}
		}
		*out = b.plan(ev, evalOptions{})
		if !out.claims() {
			// Another evaluation claimed all of it and writes the comment when it
			// has sent: writing it here too could undo what it records.
			ev.deferComment(othersClaimed, m)
			return true
		}
	}
	claimed := ev.next
	b.markClaims(&claimed, ev.report, *out)
	settle := b.ClaimSettle
	if settle == 0 {
		settle = DefaultClaimSettle
	}
	won, m, err := b.keeper().Claim(ctx, ev.gh, func(ctx context.Context) (memory.Memory, error) { return b.reread(ctx, ev) },
		*ev.pr, ev.stateOf(claimed), ev.markdown, settle, ev.log)
	if err != nil {
		b.Metrics.failed("comment")
		ev.log.Warn("could not claim the Slack messages in the comment; they are sent at a later evaluation", "err", err)
		return false
	}
	if !won {
		ev.log.Info("another evaluation claimed the Slack messages; it sends them and writes the comment")
		if fresh := m.State; fresh != nil {
			ev.next.Reminded, ev.next.Slack, ev.next.Announced, ev.next.Claim = fresh.Reminded, fresh.Slack, fresh.Announced, fresh.Claim
			ev.next.Told = fresh.Told
		}
		ev.deferComment(true, m)
		return false
	}
	claimed.Claim = m.State.Claim
	ev.next = claimed
	return true
}

// reread reads the bot's comment again, past the evaluation's cache.
func (b *Bot) reread(ctx context.Context, ev *evaluation) (memory.Memory, error) {
	ev.gh.forget()
	return b.keeper().Reread(ctx, ev.gh, *ev.pr, ev.log)
}

// deferComment leaves the comment to the evaluation that claimed the Slack messages
// (when defer is true); m is the comment as last read.
func (ev *evaluation) deferComment(deferred bool, m memory.Memory) {
	if deferred {
		ev.commentDeferred, ev.mem.Comment = true, m.Comment
	}
}

func mergeList(a, b []string) []string {
	out := slices.Clone(a)
	for _, x := range b {
		if !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	slices.Sort(out)
	return out
}

func mergeThreads(a, b map[string]SlackThread) map[string]SlackThread {
	if len(a)+len(b) == 0 {
		return nil
	}
	out := maps.Clone(a)
	if out == nil {
		out = map[string]SlackThread{}
	}
	for k, v := range b {
		if _, ok := out[k]; !ok {
			out[k] = v
		}
	}
	return out
}

// send posts what the outbox holds; a claimed message that fails is released.
func (b *Bot) send(ctx context.Context, ev *evaluation, out outbox) {
	r, pr, base, log := ev.report, *ev.pr, ev.loaded.Base, ev.log
	ref := commentRef(pr)
	failed := func(err error, args ...any) {
		b.Metrics.failed("slack")
		ev.slackFailed(err)
		log.Warn("Slack message failed; it is sent again at the next evaluation", append(args, "err", err)...)
	}
	for i, msg := range out.edits {
		th := ev.next.Slack[out.editTeams[i]]
		if err := b.Notify.Update(ctx, th.Channel, th.TS, msg); err != nil {
			failed(err, "channel", th.Channel)
			continue
		}
		th.Digest = msg.Digest()
		ev.next.Slack[out.editTeams[i]] = th
	}
	for _, so := range out.threads {
		ch := base.Teams[so.Team].Slack
		msg := slack.TeamMessage(pr, so)
		ts, err := b.post(ctx, ch, msg, "", threadKey(ref, so.Team))
		if err != nil {
			failed(err, "channel", ch)
			delete(ev.next.Slack, so.Team)
			continue
		}
		ev.next.Slack[so.Team] = SlackThread{Channel: ch, TS: ts, Digest: msg.Digest()}
	}
	for _, rem := range append(out.reminders, out.manual...) {
		channels := reminderChannels(base, r, rem)
		if len(channels) == 0 {
			log.Warn("no Slack channel for a reminder; add slack: to the team in teams.yaml", "team", rem.Team, "mark", rem.Mark)
			continue
		}
		msg := slack.ReminderMessage(pr, rem.SignOff, rem.Escalation(), r.Now)
		ok := true
		for _, ch := range channels {
			thread := ""
			if th, has := ev.next.Slack[rem.Team]; has && th.Channel == ch {
				thread = th.TS
			}
			key := reminderSentKey(ref, rem.Team, rem.SignOff.Fingerprint, rem.Mark)
			if rem.Mark == "manual" {
				key = "" // asked for: sent whenever asked
			}
			if _, err := b.post(ctx, ch, msg, thread, key); err != nil {
				ok = false
				failed(err, "channel", ch, "team", rem.Team, "mark", rem.Mark)
			}
		}
		switch {
		case rem.Mark == "manual":
		case ok:
			log.Info("reminder sent", "team", rem.Team, "mark", rem.Mark)
		default: // release the claim: every channel gets it again next time
			delete(ev.next.Reminded, reminderKey(rem.Team, rem.SignOff.Fingerprint))
		}
	}
	b.sendFYIs(ctx, ev, out.fyis)
	if out.announce {
		for _, ch := range producerChannels(base, r) {
			if _, err := b.post(ctx, ch, slack.AllSignedOffMessage(pr, r), "", announceSentKey(ref, announcementKey(r))); err != nil {
				failed(err, "channel", ch)
				ev.next.Announced = slices.DeleteFunc(ev.next.Announced, func(a string) bool { return a == announcementKey(r) })
			}
		}
	}
}

func allApproved(r *verdict.Report) bool {
	if len(r.SignOffs) == 0 {
		return false
	}
	for _, so := range r.SignOffs {
		if so.Status != verdict.Approved {
			return false
		}
	}
	return true
}

// producerChannels are the Slack channels of the changed subjects' owners, as the
// base's teams.yaml names them (the pull request never chooses where it is told).
//
// The owner is the base's: a pull request that re-owns a subject (owner: orders ->
// analytics) does not choose who is told as its producer; the head's owner counts
// only for a subject the base does not have.
func producerChannels(base *contract.Tree, r *verdict.Report) []string {
	var out []string
	for _, s := range r.Subjects {
		ownerID := s.Owner
		if bs := base.Subject(s.Subject); bs != nil {
			ownerID = bs.Owner
		}
		if owner := base.Teams[ownerID]; owner != nil && owner.Slack != "" && !slices.Contains(out, owner.Slack) {
			out = append(out, owner.Slack)
		}
	}
	return out
}

// reminderChannels lists the channels of a reminder, without repeats, from the base's
// teams.yaml.
func reminderChannels(base *contract.Tree, r *verdict.Report, rem Reminder) []string {
	var out []string
	add := func(ch string) {
		if ch != "" && !slices.Contains(out, ch) {
			out = append(out, ch)
		}
	}
	team := base.Teams[rem.Team]
	if team != nil {
		add(team.Slack)
	}
	if rem.Escalation() {
		if team != nil && team.Escalation != nil {
			add(team.Escalation.Slack)
		}
		for _, ch := range producerChannels(base, r) {
			add(ch)
		}
	}
	return out
}
