package bot

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/contractbot/contractbot/internal/bot/memory"
	"github.com/contractbot/contractbot/internal/bot/slack"
)

// Claims agrees across replicas on who sends a message that must go out once and
// belongs to no pull request (memory.Ledger: claims in commit statuses, the oldest
// sends). Once calls send at most once for key since since and reports whether it
// ran and succeeded.
type Claims interface {
	Once(ctx context.Context, key string, since time.Time, send func(context.Context) (note string, err error)) (bool, error)
}

// AlertContext is the context of the commit statuses where replicas claim the
// messages that must go out once (a ledger spread over 256 contexts a month under it:
// GitHub keeps 1,000 statuses per commit and context).
const AlertContext = "contractbot/once"

// AlertLedger is the ledger of once-only alerts of repo, on commit root (the first
// commit of its default branch, the same for every replica): serve hands it to the
// sampler's and drift alerts, calendar reminders and degraded-registry alerts.
func (b *Bot) AlertLedger(ctx context.Context, repo Repository, root string) (memory.Ledger, error) {
	api, _, err := b.clients(ctx, repo.Owner, repo.Name, 0)
	if err != nil {
		return memory.Ledger{}, fmt.Errorf("alerts of %s/%s: %w", repo.Owner, repo.Name, err)
	}
	return b.alertLedger(api, repo, root)
}

// alertLedger is AlertLedger through api.
func (b *Bot) alertLedger(api GitHub, repo Repository, root string) (memory.Ledger, error) {
	if len(b.StateKey) == 0 || b.Self == "" {
		return memory.Ledger{}, fmt.Errorf("alerts of %s/%s: %w, or the bot's login is unknown: it cannot sign or recognise its marks", repo.Owner, repo.Name, ErrNoKey)
	}
	gh, ok := api.(memory.Statuses)
	if !ok {
		return memory.Ledger{}, fmt.Errorf("alerts of %s/%s: the GitHub client cannot list commit statuses", repo.Owner, repo.Name)
	}
	return memory.Ledger{Keeper: b.keeper(), GH: gh, Owner: repo.Owner, Repo: repo.Name, SHA: root,
		Context: AlertContext, Spread: true, Settle: b.ClaimSettle, Log: b.Log}, nil
}

// tell posts msg with key to channel once since since. The channel's history is read
// first: a message found there costs no claim (a problem that persists is checked
// every round, and a claim costs GitHub calls). With claims, the replicas then agree
// on who posts, and the one that does reads the history again. Without claims the
// history is read and then posted to: enough for one replica, while two replicas at
// the same instant may both post. told reports that the message is there (posted
// now, or found).
func tell(ctx context.Context, claims Claims, n MarkedNotifier, channel string, msg slack.Message, key string, since time.Time) (told bool, err error) {
	nt := notice{channel: channel, msg: msg, key: key, since: since}
	if claims == nil {
		err := nt.post(ctx, n, false)
		return err == nil, err
	}
	if found, err := n.Marked(ctx, channel, key, since); err == nil && found {
		return true, nil
	}
	return claims.Once(ctx, nt.claimKey(), since, func(ctx context.Context) (string, error) { return "", nt.post(ctx, n, true) })
}

// notice is a message to post to a channel once: with key, counting the messages
// with that key posted there since since.
type notice struct {
	channel string
	msg     slack.Message
	key     string
	since   time.Time
}

// claimKey is the notice's key in a ledger.
func (nt notice) claimKey() string {
	sum := sha256.Sum256([]byte(nt.channel + "\x00" + nt.key))
	return "tell/" + hex.EncodeToString(sum[:10])
}

// post reads the channel's history and posts the notice unless it is there. When the
// history cannot be read, a claimed notice is posted (the claim decides) and an
// unclaimed one is not.
func (nt notice) post(ctx context.Context, n MarkedNotifier, claimed bool) error {
	found, err := n.Marked(ctx, nt.channel, nt.key, nt.since)
	switch {
	case err != nil && !claimed:
		return err
	case err == nil && found:
		return nil
	}
	return n.PostMarked(ctx, nt.channel, nt.msg, nt.key)
}

// tellAll posts each notice once, as tell does, with the claims of all in one round of
// l (one settle for all: the announcements of a push's versions). Without a ledger
// each channel's history is read, then posted to.
func tellAll(ctx context.Context, l *memory.Ledger, n MarkedNotifier, notices []notice) error {
	var errs []error
	if l == nil {
		for _, nt := range notices {
			errs = append(errs, nt.post(ctx, n, false))
		}
		return errors.Join(errs...)
	}
	var rest []notice
	var keys []string
	var since time.Time
	for _, nt := range notices {
		if found, err := n.Marked(ctx, nt.channel, nt.key, nt.since); err == nil && found {
			continue
		}
		rest, keys = append(rest, nt), append(keys, nt.claimKey())
		if since.IsZero() || nt.since.Before(since) {
			since = nt.since
		}
	}
	if len(rest) == 0 {
		return nil
	}
	c, err := l.Claim(ctx, keys, since)
	if err != nil {
		return err
	}
	for _, nt := range rest {
		if k := nt.claimKey(); c.Won(k) {
			err := nt.post(ctx, n, true)
			errs = append(errs, err, c.Done(ctx, k, "", err))
		}
	}
	return errors.Join(errs...)
}
