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
	// StatusesSince lists a commit's statuses of every context, newest first (GitHub
	// lists them so and cannot filter by context), page by page, and stops after the
	// page that reaches one created before since (every page when since is zero).
	StatusesSince(ctx context.Context, owner, repo, sha string, since time.Time) ([]githubapi.StatusRecord, error)
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
	// Spread keeps the marks under 256 contexts a month (Context + "/" + the
	// month + "/" + two hex digits of the key's hash): GitHub keeps at most 1,000
	// statuses per commit and context and refuses more, which one context, or 256
	// for good, would reach (a pull request's messages write about 20).
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
	return l.Context + "/" + l.now().UTC().Format("2006-01") + "/" + hex.EncodeToString(sum[:1])
}

// holds says whether a status of context can be one of the ledger's marks: its
// context, or one under it (a month's and a key's; before months, a key's only).
func (l Ledger) holds(context string) bool {
	return context == l.Context || strings.HasPrefix(context, l.Context+"/")
}

// signature signs a mark's text for the ledger's repository and commit.
func (l Ledger) signature(text string) string {
	mac := hmac.New(sha256.New, l.Key)
	mac.Write([]byte(l.Context + "/v1\n" + strings.ToLower(l.Owner+"/"+l.Repo) + "\n" + l.SHA + "\n" + text))
	return hex.EncodeToString(mac.Sum(nil))
}

// marks reads the verified marks of keys written at or after since, oldest first
// (older ones may come along). A status written by anyone but the bot's login, or
// whose signature does not verify, is ignored. GitHub lists a commit's statuses
// newest first, so the read stops at since: a claim reads the marks of its window,
// never every mark the ledger ever kept.
func (l Ledger) marks(ctx context.Context, keys []string, since time.Time) ([]Mark, error) {
	all, err := l.GH.StatusesSince(ctx, l.Owner, l.Repo, l.SHA, since)
	if err != nil {
		return nil, fmt.Errorf("read the marks of %s (commit statuses %s on %s): %w", strings.Join(keys, ", "), l.Context, short(l.SHA), err)
	}
	var out []Mark
	seen := map[int64]bool{} // a status written while paging can show on two pages
	for _, s := range all {
		f := strings.Fields(s.Description)
		if !l.holds(s.Context) || seen[s.ID] || !strings.EqualFold(s.Creator, l.Self) || len(f) < 4 || !slices.Contains(keys, f[0]) {
			continue
		}
		seen[s.ID] = true
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

// window is how far back a claim reads: to since, or to the oldest claim that can
// still stand (a lease ago) when that is earlier. Zero reads everything.
func (l Ledger) window(since time.Time) time.Time {
	if since.IsZero() {
		return since
	}
	if oldest := l.now().Add(-l.lease()); oldest.Before(since) {
		return oldest
	}
	return since
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
	released := map[string]bool{} // by token: a claim's token names one replica's round
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

// Claimed is what one round of claims won: the keys this replica sends, under one
// token, and what another replica noted when it sent a key already.
type Claimed struct {
	l     Ledger
	token string
	won   map[string]bool
	// Others holds the note of each key another replica sent (its "sent" mark).
	Others map[string]string
}

// Won says whether this replica sends key.
func (c *Claimed) Won(key string) bool { return c != nil && c.won[key] }

// Done records how sending a won key went: "sent" with note, or "released" when err
// is not nil, so the next round claims it again. A key not won records nothing.
func (c *Claimed) Done(ctx context.Context, key, note string, err error) error {
	if !c.Won(key) {
		return nil
	}
	delete(c.won, key)
	if err != nil {
		if werr := c.l.Write(ctx, "error", key, "released", c.token, ""); werr != nil {
			return fmt.Errorf("%s failed, and releasing its claim failed too (another replica claims it after %s): %w", key, c.l.lease(), werr)
		}
		return nil
	}
	if werr := c.l.Write(ctx, "success", key, "sent", c.token, note); werr != nil {
		return fmt.Errorf("%s was sent, but its sent mark failed (the claim stands for %s): %w", key, c.l.lease(), werr)
	}
	return nil
}

// Claim claims keys at once for this replica: a key is left out when a "sent" mark
// of it is there from since on (its note goes into Others), or while another claim
// of it stands. The rest are claimed under one token; after Settle the marks are read
// back, and this replica wins the keys whose oldest live claim is its own: every
// replica sees the same oldest claim, so two replicas that claim at the same instant,
// or one so slow that its claim lands after the other's read-back, never both win.
// A lost claim is released at once. The caller sends what it won and reports each
// with Done.
func (l Ledger) Claim(ctx context.Context, keys []string, since time.Time) (*Claimed, error) {
	c := &Claimed{l: l, token: NewToken(), won: map[string]bool{}, Others: map[string]string{}}
	marks, err := l.marks(ctx, keys, l.window(since))
	if err != nil {
		return nil, err
	}
	var want []string
	for _, key := range keys {
		if note, sent := l.sentNote(marks, key, since); sent {
			c.Others[key] = note
		} else if _, live := l.Standing(marks, key, since); len(live) == 0 && !slices.Contains(want, key) {
			want = append(want, key)
		}
	}
	var claimed []string
	for _, key := range want {
		if err := l.Write(ctx, "pending", key, "claim", c.token, ""); err != nil {
			l.release(ctx, claimed, c.token)
			return nil, fmt.Errorf("claim %s: %w", key, err)
		}
		claimed = append(claimed, key)
	}
	if len(claimed) == 0 {
		return c, nil
	}
	t := time.NewTimer(cmp.Or(l.Settle, DefaultLedgerSettle))
	defer t.Stop()
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-t.C:
	}
	if marks, err = l.marks(ctx, claimed, l.window(since)); err != nil {
		l.release(ctx, claimed, c.token)
		return nil, err
	}
	var lost []string
	for _, key := range claimed {
		sent, live := l.Standing(marks, key, since)
		if note, ok := l.sentNote(marks, key, since); ok {
			c.Others[key] = note
		}
		if sent || len(live) == 0 || live[0].Token != c.token {
			lost = append(lost, key)
			continue
		}
		c.won[key] = true
	}
	if len(lost) > 0 {
		if l.Log != nil {
			l.Log.Info("another replica claimed them first", "keys", lost)
		}
		l.release(ctx, lost, c.token)
	}
	return c, nil
}

// sentNote is the note of the newest "sent" mark of key from since on.
func (l Ledger) sentNote(marks []Mark, key string, since time.Time) (string, bool) {
	for _, m := range slices.Backward(marks) {
		if m.Key == key && m.Kind == "sent" && !m.At.Before(since) {
			return m.Note, true
		}
	}
	return "", false
}

// release releases this round's claims of keys (best effort: an unreleased claim
// lapses after the lease).
func (l Ledger) release(ctx context.Context, keys []string, token string) {
	for _, key := range keys {
		if err := l.Write(ctx, "error", key, "released", token, ""); err != nil && l.Log != nil {
			l.Log.Warn("releasing a claim failed; it lapses after the lease", "key", key, "lease", l.lease(), "err", err)
		}
	}
}

// Once calls send at most once across replicas for key since since (Claim of one
// key): not when a "sent" mark of key is there from since on, nor while another
// replica's claim stands, nor when another claim written at the same time is older.
// It reports whether send ran and succeeded. send's note goes into the "sent" mark;
// a send that fails releases the claim, so the next round tries again.
func (l Ledger) Once(ctx context.Context, key string, since time.Time, send func(context.Context) (note string, err error)) (bool, error) {
	c, err := l.Claim(ctx, []string{key}, since)
	if err != nil || !c.Won(key) {
		return false, err
	}
	note, err := send(ctx)
	if derr := c.Done(ctx, key, note, err); derr != nil && err == nil {
		return true, derr
	} else if derr != nil && l.Log != nil {
		l.Log.Warn("releasing a claim failed; another replica claims it after the lease", "key", key, "lease", l.lease(), "err", derr)
	}
	if err != nil {
		return false, fmt.Errorf("%s (released for the next round): %w", key, err)
	}
	return true, nil
}
