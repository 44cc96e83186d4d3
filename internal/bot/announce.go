package bot

import (
	"context"
	"log/slog"
	"slices"
	"sort"
	"sync"

	"github.com/contractbot/contractbot/internal/bot/slack"

	"github.com/contractbot/contractbot/internal/contract"
	"github.com/contractbot/contractbot/internal/events"
)

// announcingSink sends each change event on, then announces it on Slack to the
// producer's channel and the channels of the affected consumers' teams. The
// announcement carries the event id as its key, so a re-sent event (after a crash) is
// not announced twice; Slack failing never fails the publish.
type announcingSink struct {
	events.Sink
	notify MarkedNotifier
	src    contract.Source
	log    *slog.Logger

	once  sync.Once
	index map[string]string
	teams map[string]*contract.Team
}

func (a *announcingSink) Send(ctx context.Context, e events.Event) error {
	if err := a.Sink.Send(ctx, e); err != nil {
		return err
	}
	p := e.Data
	msg := slack.PublishedMessage(p)
	for _, ch := range a.channels(p) {
		sent, err := a.notify.Marked(ctx, ch, e.ID, e.Time.AddDate(0, 0, -2))
		if err != nil || sent {
			if err != nil {
				a.log.Warn("announce: reading the channel failed", "channel", ch, "err", err)
			}
			continue
		}
		if err := a.notify.PostMarked(ctx, ch, msg, e.ID); err != nil {
			a.log.Warn("announce: Slack message failed", "channel", ch, "err", err)
		}
	}
	return nil
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
