package bot

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
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

// AlertContext is the context of the commit statuses where replicas claim the alerts
// and reminders that belong to no pull request (a ledger spread over 256 contexts
// under it: GitHub keeps 1,000 statuses per commit and context).
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
	post := func(ctx context.Context) (string, error) {
		if found, err := n.Marked(ctx, channel, key, since); err != nil || found {
			if err != nil && claims != nil { // the claim decides: post
				return "", n.PostMarked(ctx, channel, msg, key)
			}
			return "", err
		}
		return "", n.PostMarked(ctx, channel, msg, key)
	}
	if claims == nil {
		_, err := post(ctx)
		return err == nil, err
	}
	if found, err := n.Marked(ctx, channel, key, since); err == nil && found {
		return true, nil
	}
	sum := sha256.Sum256([]byte(channel + "\x00" + key))
	return claims.Once(ctx, "tell/"+hex.EncodeToString(sum[:10]), since, post)
}
