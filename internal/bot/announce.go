package bot

import (
	"context"
	"log/slog"
	"slices"
	"sort"
	"sync"

	"github.com/contractbot/contractbot/internal/bot/memory"
	"github.com/contractbot/contractbot/internal/bot/slack"

	"github.com/contractbot/contractbot/internal/contract"
	"github.com/contractbot/contractbot/internal/events"
)

// announcingSink sends each change event on, and announces it on Slack to the
// producer's channel and the channels of the affected consumers' teams once the push
// is published (flush). The announcement carries the event id as its key, so a
// re-sent event (after a crash) is not announced twice; replicas publishing the same
// push claim the announcements in claims (nil: each reads Slack, then posts), all of a
// push's at once; Slack failing never fails the publish.
type announcingSink struct {
	events.Sink
	notify MarkedNotifier
	claims *memory.Ledger
	src    contract.Source
	log    *slog.Logger
	due    []notice

	once  sync.Once
	index map[string]string
	teams map[string]*contract.Team
}

func (a *announcingSink) Send(ctx context.Context, e events.Event) error {
	if err := a.Sink.Send(ctx, e); err != nil {
		return err
	}
	msg := slack.PublishedMessage(e.Data)
	for _, ch := range a.channels(e.Data) {
		a.due = append(a.due, notice{channel: ch, msg: msg, key: e.ID, since: e.Time.AddDate(0, 0, -2)})
	}
	return nil
}

// flush announces the events sent so far.
func (a *announcingSink) flush(ctx context.Context) {
	if err := tellAll(ctx, a.claims, a.notify, a.due); err != nil {
		a.log.Warn("announce: a Slack announcement failed", "err", err)
	}
	a.due = nil
}

// channels are the producer's and the affected teams' Slack channels.
func (a *announcingSink) channels(p events.Published) []string {
	a.once.Do(func() {
		a.index, _ = contract.IndexSubjects(a.src)
		if t, err := contract.LoadSubjects(a.src, nil, a.index); err == nil {
			a.teams = t.Teams
		}
	})
	owners := map[string]bool{}
	if dir, ok := a.index[p.Subject]; ok {
		if t, err := contract.LoadSubject(a.src, dir); err == nil {
			if s := t.Subject(p.Subject); s != nil {
				owners[s.Owner] = true
			}
		}
	}
	for _, c := range p.Affected {
		owners[c.Owner] = true
	}
	var out []string
	for o := range owners {
		if t := a.teams[o]; t != nil && t.Slack != "" && !slices.Contains(out, t.Slack) {
			out = append(out, t.Slack)
		}
	}
	sort.Strings(out)
	return out
}
