package bot

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
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
// escalation, the all-signed-off note, an FYI) is first claimed in the ledger every
// replica shares (claim; internal/bot/memory, Ledger.Claim): only the evaluation
// whose claim is the oldest sends it, and a claim whose message fails is released, so
// the next evaluation sends it. The comment is never written to claim: converge writes
// the verdict, and keepSent what Slack got when that changed.
func (b *Bot) notify(ctx context.Context, ev *evaluation, opt evalOptions) {
	if b.Notify == nil {
		return
	}
	out := b.plan(ev, opt)
	if out.claims() { // what Slack shows sent is not sent again (sent.go)
		b.recall(ctx, ev, out)
		out = b.plan(ev, opt)
	}
	var claimed *memory.Claimed
	if out.claims() {
		claimed = b.claim(ctx, ev, &out)
	}
	b.send(ctx, ev, out, claimed)
}

// carried is the Slack memory of the previous state that still applies: threads,
// announcements, and the reminder marks of the requirements that are still the same.
func carried(st *State, r *verdict.Report) State {
	var next State
	if st == nil {
		return next
	}
	next.Slack, next.Announced = maps.Clone(st.Slack), slices.Clone(st.Announced)
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

// claim agrees with the other replicas on who sends out's once-only messages: each is
// a key in the repository's ledger (prLedger), claimed at once. out keeps what this
// evaluation won. What another replica sent already is recorded in ev.next as sent
// (a team's message with the timestamp its sender noted); what another replica is
// sending now is left to it: it records it. Without a ledger (no statuses to keep it
// in) the messages are sent unclaimed, as by a single replica; when claiming fails
// they wait for a later evaluation.
func (b *Bot) claim(ctx context.Context, ev *evaluation, out *outbox) *memory.Claimed {
	ledger, err := b.prLedger(ev)
	if err != nil {
		ev.log.Warn("no ledger to claim the Slack messages in; they are sent unclaimed (two replicas at the same instant may both send)", "err", err)
		return nil
	}
	r, ref := ev.report, commentRef(*ev.pr)
	var keys []string
	for _, so := range out.threads {
		keys = append(keys, onceKey(threadKey(ref, so.Team)))
	}
	for _, rem := range out.reminders {
		keys = append(keys, onceKey(reminderSentKey(ref, rem.Team, rem.SignOff.Fingerprint, rem.Mark)))
	}
	for _, f := range out.fyis {
		keys = append(keys, onceKey(fyiSentKey(ref, f)))
	}
	if out.announce {
		keys = append(keys, onceKey(announceSentKey(ref, announcementKey(r))))
	}
	c, err := ledger.Claim(ctx, keys, b.now().Add(-memory.DefaultLease))
	if err != nil {
		b.Metrics.failed("claim")
		ev.slackFailed(err) // evaluated again on Slack's retry schedule (slackretry.go)
		ev.log.Warn("could not claim the Slack messages; they are sent at a later evaluation", "err", err)
		out.threads, out.reminders, out.fyis, out.announce = nil, nil, nil, false
		return nil
	}
	base := ev.loaded.Base
	out.threads = slices.DeleteFunc(out.threads, func(so *verdict.SignOff) bool {
		k := onceKey(threadKey(ref, so.Team))
		if ts, sent := c.Others[k]; sent && ts != "" {
			ev.threaded(so.Team, SlackThread{Channel: base.Teams[so.Team].Slack, TS: ts})
		}
		return !c.Won(k)
	})
	out.reminders = slices.DeleteFunc(out.reminders, func(rem Reminder) bool {
		k := onceKey(reminderSentKey(ref, rem.Team, rem.SignOff.Fingerprint, rem.Mark))
		if _, sent := c.Others[k]; sent {
			ev.reminded(rem, b.marks())
		}
		return !c.Won(k)
	})
	var told []verdict.FYI
	out.fyis = slices.DeleteFunc(out.fyis, func(f verdict.FYI) bool {
		k := onceKey(fyiSentKey(ref, f))
		if _, sent := c.Others[k]; sent {
			told = append(told, f)
		}
		return !c.Won(k)
	})
	markTold(&ev.next, told)
	if k := onceKey(announceSentKey(ref, announcementKey(r))); out.announce {
		if _, sent := c.Others[k]; sent {
			ev.next.Announced = mergeList(ev.next.Announced, []string{announcementKey(r)})
		}
		out.announce = c.Won(k)
	}
	return c
}

// reminded records in ev.next that rem was sent.
func (ev *evaluation) reminded(rem Reminder, marks []time.Duration) {
	k := reminderKey(rem.Team, rem.SignOff.Fingerprint)
	if ev.next.Reminded == nil {
		ev.next.Reminded = map[string][]string{}
	}
	ev.next.Reminded[k] = MarkSent(map[string][]string{rem.Team: ev.next.Reminded[k]}, rem, marks)[rem.Team]
}

// threaded records in ev.next where team's message is.
func (ev *evaluation) threaded(team string, th SlackThread) {
	if ev.next.Slack == nil {
		ev.next.Slack = map[string]SlackThread{}
	}
	ev.next.Slack[team] = th
}

// onceKey is a message's key in the ledger: its Slack key, hashed to fit a commit
// status with its mark.
func onceKey(sentKey string) string {
	sum := sha256.Sum256([]byte(sentKey))
	return "pr/" + hex.EncodeToString(sum[:10])
}

// prLedger is the ledger where the pull request's once-only Slack messages are
// claimed: the repository's ledger of once-only alerts (AlertLedger), on the first
// commit of the base branch's first-parent history.
func (b *Bot) prLedger(ev *evaluation) (memory.Ledger, error) {
	if ev.root == "" {
		return memory.Ledger{}, fmt.Errorf("the first commit of %s/%s is unknown", ev.pr.Owner, ev.pr.Repo)
	}
	return b.alertLedger(ev.gh.GitHub, Repository{ev.pr.Owner, ev.pr.Repo}, ev.root)
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

// send posts what the outbox holds and tells c (nil: sent unclaimed) how each
// once-only message went; a claimed message that fails is released.
func (b *Bot) send(ctx context.Context, ev *evaluation, out outbox, c *memory.Claimed) {
	r, pr, base, log := ev.report, *ev.pr, ev.loaded.Base, ev.log
	ref := commentRef(pr)
	failed := func(err error, args ...any) {
		b.Metrics.failed("slack")
		ev.slackFailed(err)
		log.Warn("Slack message failed; it is sent again at the next evaluation", append(args, "err", err)...)
	}
	done := func(sentKey, note string, err error) {
		if derr := c.Done(ctx, onceKey(sentKey), note, err); derr != nil {
			b.Metrics.failed("claim")
			log.Warn("could not record a Slack message in the ledger", "err", derr)
		}
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
		done(threadKey(ref, so.Team), ts, err)
		if err != nil {
			failed(err, "channel", ch)
			continue
		}
		ev.threaded(so.Team, SlackThread{Channel: ch, TS: ts, Digest: msg.Digest()})
	}
	for _, rem := range append(out.reminders, out.manual...) {
		channels := reminderChannels(base, r, rem)
		if len(channels) == 0 {
			log.Warn("no Slack channel for a reminder; add slack: to the team in teams.yaml", "team", rem.Team, "mark", rem.Mark)
			continue
		}
		msg := slack.ReminderMessage(pr, rem.SignOff, rem.Escalation(), r.Now)
		var errs []error
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
				errs = append(errs, err)
				failed(err, "channel", ch, "team", rem.Team, "mark", rem.Mark)
			}
		}
		if rem.Mark != "manual" {
			done(reminderSentKey(ref, rem.Team, rem.SignOff.Fingerprint, rem.Mark), "", errors.Join(errs...))
		}
		if rem.Mark != "manual" && len(errs) == 0 { // else every channel gets it again next time
			log.Info("reminder sent", "team", rem.Team, "mark", rem.Mark)
			ev.reminded(rem, b.marks())
		}
	}
	b.sendFYIs(ctx, ev, out.fyis, done)
	if out.announce {
		var errs []error
		for _, ch := range producerChannels(base, r) {
			if _, err := b.post(ctx, ch, slack.AllSignedOffMessage(pr, r), "", announceSentKey(ref, announcementKey(r))); err != nil {
				errs = append(errs, err)
				failed(err, "channel", ch)
			}
		}
		done(announceSentKey(ref, announcementKey(r)), "", errors.Join(errs...))
		if len(errs) == 0 { // else every producer hears it again next time
			ev.next.Announced = mergeList(ev.next.Announced, []string{announcementKey(r)})
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
