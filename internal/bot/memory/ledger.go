package memory

import (
	"cmp"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/contractbot/contractbot/internal/bot/githubapi"
)

// The ledger. A message that must go out once and belongs to no pull request (the
// monthly digest, a calendar reminder, a drift or sampling alert, a published
// version's announcement) has no comment to claim it in. Its claim lives in commit
// statuses on one commit every replica agrees on (the first commit of the default
// branch): statuses are only ever appended, only the App or token that wrote one is
// its creator, and GitHub numbers them in the order it creates them. A replica writes
// its claim, waits Settle, reads the claims back, and sends only when the oldest live
// claim is its own: every replica sees the same oldest claim, so two replicas that
// claim at the same instant never both send (unlike reading Slack and then posting).
// Then it writes "sent" (or "released" when sending failed, so the next round tries
// again); a claim that is neither sent nor released within Lease belongs to a replica
// that died, and another may claim the key again.

// Statuses reads and writes the commit statuses a ledger keeps its marks in
// (githubapi.Client has them).
type Statuses interface {
	ListStatuses(ctx context.Context, owner, repo, sha, statusContext string) ([]githubapi.StatusRecord, error)
	CreateStatus(ctx context.Context, owner, repo, sha string, st githubapi.Status) error
}

// Ledger keeps the claims of once-only messages in signed commit statuses.
type Ledger struct {
	// Keeper is the bot's login (only statuses it created count), key (marks are
	// signed) and clock.
	Keeper
	GH Statuses
	// Owner, Repo and SHA name the commit the marks are on.
	Owner, Repo, SHA string
	// Context is the statuses' context, and the domain of their signatures.
	Context string
	// Spread keeps each key's marks under a context of its own (Context + "/" + two
	// hex digits of the key's hash): GitHub keeps at most 1,000 statuses per commit
	// and context, which a ledger of many keys would reach.
	Spread bool
	// Settle is the wait between writing a claim and reading the claims back
	// (DefaultLedgerSettle when 0); Lease is how long a claim stands without a
	// "sent" or "released" mark (DefaultLease when 0).
	Settle, Lease time.Duration
	Log           *slog.Logger
}

// DefaultLedgerSettle and DefaultLease are a Ledger's defaults.
const (
	DefaultLedgerSettle = time.Second
	DefaultLease        = time.Hour
)

// MaxStatusDescription is GitHub's limit on a commit status's description.
const MaxStatusDescription = 140

// Mark is one verified mark of a ledger: its key, kind (claim, sent, released), the
// token of the replica that wrote it, an optional note, GitHub's id and creation time.
type Mark struct {
	ID                     int64
	Key, Kind, Token, Note string
	At                     time.Time
	State                  string
}

func (l Ledger) context(key string) string {
	if !l.Spread {
		return l.Context
	}
	sum := sha256.Sum256([]byte(key))
	return l.Context + "/" + hex.EncodeToString(sum[:1])
}

// signature signs a mark's text for the ledger's repository and commit.
func (l Ledger) signature(text string) string {
	mac := hmac.New(sha256.New, l.Key)
	mac.Write([]byte(l.Context + "/v1\n" + strings.ToLower(l.Owner+"/"+l.Repo) + "\n" + l.SHA + "\n" + text))
	return hex.EncodeToString(mac.Sum(nil))
}

// Marks reads the verified marks of key, oldest first. A status written by anyone
// but the bot's login, or whose signature does not verify, is ignored.
func (l Ledger) Marks(ctx context.Context, key string) ([]Mark, error) {
	all, err := l.GH.ListStatuses(ctx, l.Owner, l.Repo, l.SHA, l.context(key))
	if err != nil {
		return nil, fmt.Errorf("read the marks of %s (commit statuses %s on %s): %w", key, l.context(key), short(l.SHA), err)
	}
	var out []Mark
	for _, s := range all {
		f := strings.Fields(s.Description)
		if !strings.EqualFold(s.Creator, l.Self) || len(f) < 4 || f[0] != key {
			continue
		}
		text, sig := strings.Join(f[:len(f)-1], " "), f[len(f)-1]
		if !hmac.Equal([]byte(sig), []byte(l.signature(text))) {
			if l.Log != nil {
				l.Log.Warn("a mark does not verify; it is ignored", "context", s.Context, "status", s.ID, "creator", s.Creator)
			}
			continue
		}
		m := Mark{ID: s.ID, Key: f[0], Kind: f[1], Token: f[2], At: s.CreatedAt, State: s.State}
		if len(f) > 4 {
			m.Note = strings.Join(f[3:len(f)-1], " ")
		}
		out = append(out, m)
	}
	slices.SortFunc(out, func(a, b Mark) int { return cmp.Compare(a.ID, b.ID) })
	return out, nil
}

// Write writes a signed mark: key, kind, token and note (none may hold spaces but
// the note) as a status in state.
func (l Ledger) Write(ctx context.Context, state, key, kind, token, note string) error {
	text := strings.Join(slices.DeleteFunc([]string{key, kind, token, note}, func(s string) bool { return s == "" }), " ")
	desc := text + " " + l.signature(text)
	if len(desc) > MaxStatusDescription || strings.ContainsAny(key+kind+token, " \t\n") {
		return fmt.Errorf("the mark %q does not fit a commit status (at most %d characters, no spaces in its key)", text, MaxStatusDescription)
	}
	return l.GH.CreateStatus(ctx, l.Owner, l.Repo, l.SHA, githubapi.Status{State: state, Context: l.context(key), Description: desc})
}

func (l Ledger) lease() time.Duration { return cmp.Or(l.Lease, DefaultLease) }

// Standing says whether key was sent at or after since (any time when since is
// zero), and its live claims (neither released nor past the lease), oldest first.
func (l Ledger) Standing(marks []Mark, key string, since time.Time) (sent bool, live []Mark) {
	released := map[string]bool{}
	for _, m := range marks {
		if m.Key != key {
			continue
		}
		switch m.Kind {
		case "sent":
			sent = sent || !m.At.Before(since)
		case "released":
			released[m.Token] = true
		}
	}
	now := l.now()
	for _, m := range marks {
		if m.Key == key && m.Kind == "claim" && !released[m.Token] && now.Sub(m.At) < l.lease() {
			live = append(live, m)
		}
	}
	return sent, live
}

// Once calls send at most once across replicas for key since since: not when a
// "sent" mark of key is there from since on, nor while another replica's claim
// stands, nor when another claim written at the same time is older. It reports
// whether send ran and succeeded. send's note goes into the "sent" mark; a send that
// fails releases the claim, so the next round tries again.
func (l Ledger) Once(ctx context.Context, key string, since time.Time, send func(context.Context) (note string, err error)) (bool, error) {
	marks, err := l.Marks(ctx, key)
	if err != nil {
		return false, err
	}
	if sent, live := l.Standing(marks, key, since); sent || len(live) > 0 {
		return false, nil
	}
	token := NewToken()
	if err := l.Write(ctx, "pending", key, "claim", token, ""); err != nil {
		return false, fmt.Errorf("claim %s: %w", key, err)
	}
	t := time.NewTimer(cmp.Or(l.Settle, DefaultLedgerSettle))
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false, ctx.Err()
	case <-t.C:
	}
	if marks, err = l.Marks(ctx, key); err != nil {
		return false, err
	}
	if sent, live := l.Standing(marks, key, since); sent || len(live) == 0 || live[0].Token != token {
		if l.Log != nil {
			l.Log.Info("another replica claimed it first", "key", key)
		}
		return false, nil
	}
	note, err := send(ctx)
	if err != nil {
		if werr := l.Write(ctx, "error", key, "released", token, ""); werr != nil && l.Log != nil {
			l.Log.Warn("releasing a claim failed; another replica claims it after the lease", "key", key, "lease", l.lease(), "err", werr)
		}
		return false, fmt.Errorf("%s (released for the next round): %w", key, err)
	}
	if err := l.Write(ctx, "success", key, "sent", token, note); err != nil {
		return true, fmt.Errorf("%s was sent, but its sent mark failed (the claim stands for %s): %w", key, l.lease(), err)
	}
	return true, nil
}
