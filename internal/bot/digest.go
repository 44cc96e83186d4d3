package bot

import (
	"cmp"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"

	"github.com/contractbot/contractbot/internal/bot/githubapi"
	"github.com/contractbot/contractbot/internal/bot/memory"
	"github.com/contractbot/contractbot/internal/bot/slack"
	"github.com/contractbot/contractbot/internal/contract"
	"github.com/contractbot/contractbot/internal/guard"
	"github.com/contractbot/contractbot/internal/report"
)

// DigestContext is the commit status where the bot keeps the marks of its monthly
// health digest, on the first commit of the default branch: "2026-12 claim ..." while
// a replica sends, "2026-12 sent ..." once sent. Only statuses written by the bot's
// own login with a valid signature count.
const DigestContext = "contractbot/digest"

// DefaultDigestLease is how long a replica's claim of a month's digest stands: a
// claim older than that without a "sent" mark belongs to a replica that died, and
// another may claim the month again.
const DefaultDigestLease = time.Hour

// Digest is the monthly health digest of one repository: each team's part of the
// health report (internal/report) goes to its lead on Slack, once a month across
// replicas.
type Digest struct {
	// Repo is the repository on GitHub where the marks live.
	Repo Repository
	// Root returns the first commit of the default branch's first-parent history,
	// where the marks live (the same for every replica and every month).
	Root func(ctx context.Context) (string, error)
	// Health builds the report of the default branch's head and returns the tree it
	// was built from (its teams.yaml says where each team's part goes).
	Health func(ctx context.Context, now time.Time) (*report.Report, *contract.Tree, error)
	// Lease is DefaultDigestLease when 0.
	Lease time.Duration
}

// digestStatuses reads and writes the digest's marks (githubapi.Client has them).
type digestStatuses interface {
	ListStatuses(ctx context.Context, owner, repo, sha, statusContext string) ([]githubapi.StatusRecord, error)
	CreateStatus(ctx context.Context, owner, repo, sha string, st githubapi.Status) error
}

// digestMark is one verified mark: month, kind (claim, sent, released), the token of
// the replica that wrote it, and GitHub's time and id of the status.
type digestMark struct {
	ID                 int64
	Month, Kind, Token string
	At                 time.Time
	State, Description string
}

// digestSignature signs a mark's text for a repository and root commit.
func digestSignature(key []byte, repo Repository, root, text string) string {
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte("contractbot/digest/v1\n" + strings.ToLower(repo.Owner+"/"+repo.Name) + "\n" + root + "\n" + text))
	return hex.EncodeToString(mac.Sum(nil))
}

// marks reads the verified marks of the digest, oldest first.
func (b *Bot) digestMarks(ctx context.Context, gh digestStatuses, d Digest, root string) ([]digestMark, error) {
	all, err := gh.ListStatuses(ctx, d.Repo.Owner, d.Repo.Name, root, DigestContext)
	if err != nil {
		return nil, fmt.Errorf("read the digest's marks (commit statuses %s on %s): %w", DigestContext, root, err)
	}
	var out []digestMark
	for _, s := range all {
		f := strings.Fields(s.Description)
		if !strings.EqualFold(s.Creator, b.Self) || len(f) < 4 {
			continue
		}
		text, sig := strings.Join(f[:len(f)-1], " "), f[len(f)-1]
		if !hmac.Equal([]byte(sig), []byte(digestSignature(b.StateKey, d.Repo, root, text))) {
			b.Log.Warn("a digest mark does not verify; it is ignored", "status", s.ID, "creator", s.Creator)
			continue
		}
		out = append(out, digestMark{ID: s.ID, Month: f[0], Kind: f[1], Token: f[2], At: s.CreatedAt, State: s.State, Description: s.Description})
	}
	slices.SortFunc(out, func(a, c digestMark) int { return cmp.Compare(a.ID, c.ID) })
	return out, nil
}

// writeMark writes a signed mark of the month.
func (b *Bot) writeMark(ctx context.Context, gh digestStatuses, d Digest, root, state, text string) error {
	desc := text + " " + digestSignature(b.StateKey, d.Repo, root, text)
	return gh.CreateStatus(ctx, d.Repo.Owner, d.Repo.Name, root, githubapi.Status{State: state, Context: DigestContext, Description: desc})
}

// standing says whether the month's digest is sent, and the live claims (not
// released, younger than the lease), oldest first.
func standing(marks []digestMark, month string, now time.Time, lease time.Duration) (sent bool, live []digestMark) {
	released := map[string]bool{}
	for _, m := range marks {
		if m.Month != month {
			continue
		}
		switch m.Kind {
		case "sent":
			sent = true
		case "released":
			released[m.Token] = true
		}
	}
	for _, m := range marks {
		if m.Month == month && m.Kind == "claim" && !released[m.Token] && now.Sub(m.At) < lease {
			live = append(live, m)
		}
	}
	return sent, live
}

// MonthlyDigest sends this month's digest unless it was sent or another replica is
// sending it. Replicas agree through the marks: one that finds neither a "sent" mark
// nor a live claim writes its claim, waits ClaimSettle, reads the marks again and
// sends only if the oldest live claim is its own (GitHub numbers statuses in the
// order it creates them, so every replica sees the same oldest claim).
func (b *Bot) MonthlyDigest(ctx context.Context, d Digest) error {
	now := b.Now().UTC()
	month := now.Format("2006-01")
	lease := d.Lease
	if lease == 0 {
		lease = DefaultDigestLease
	}
	if len(b.StateKey) == 0 || b.Self == "" {
		return fmt.Errorf("monthly digest: %w, or the bot's login is unknown: it cannot sign or recognise its marks", ErrNoKey)
	}
	api, _, err := b.clients(ctx, d.Repo.Owner, d.Repo.Name, 0)
	if err != nil {
		return fmt.Errorf("monthly digest of %s/%s: %w", d.Repo.Owner, d.Repo.Name, err)
	}
	gh, ok := api.(digestStatuses)
	if !ok {
		return fmt.Errorf("monthly digest: the GitHub client cannot list commit statuses")
	}
	root, err := d.Root(ctx)
	if err != nil {
		return fmt.Errorf("monthly digest: find the first commit of the default branch: %w", err)
	}
	marks, err := b.digestMarks(ctx, gh, d, root)
	if err != nil {
		return err
	}
	if sent, live := standing(marks, month, now, lease); sent || len(live) > 0 {
		return nil
	}
	token := memory.NewToken()
	if err := b.writeMark(ctx, gh, d, root, "pending", month+" claim "+token); err != nil {
		return fmt.Errorf("monthly digest: claim %s: %w", month, err)
	}
	settle := b.ClaimSettle
	if settle == 0 {
		settle = DefaultClaimSettle
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(settle):
	}
	if marks, err = b.digestMarks(ctx, gh, d, root); err != nil {
		return err
	}
	if sent, live := standing(marks, month, b.Now(), lease); sent || len(live) == 0 || live[0].Token != token {
		b.Log.Info("monthly digest: another replica claimed it first", "month", month)
		return nil
	}
	n, failed, err := b.sendDigest(ctx, d, month, now)
	if err != nil || (n == 0 && failed > 0) {
		if werr := b.writeMark(ctx, gh, d, root, "error", month+" released "+token); werr != nil {
			b.Log.Warn("monthly digest: releasing the claim failed; another replica claims it after the lease", "err", werr)
		}
		if err == nil {
			err = fmt.Errorf("no digest message of %s could be sent (%d failed)", month, failed)
		}
		return fmt.Errorf("monthly digest (released for the next round): %w", err)
	}
	if err := b.writeMark(ctx, gh, d, root, "success", fmt.Sprintf("%s sent %s %d/%d", month, token, n, n+failed)); err != nil {
		return fmt.Errorf("monthly digest: %d message(s) sent, but the sent mark failed (the claim stands for %s): %w", n, lease, err)
	}
	b.Log.Info("monthly digest sent", "month", month, "messages", n, "failed", failed)
	return nil
}

// sendDigest posts each team's part that has something to say to its lead (or its
// channel): how many were sent and how many failed.
func (b *Bot) sendDigest(ctx context.Context, d Digest, month string, now time.Time) (sent, failed int, err error) {
	if b.Notify == nil {
		return 0, 0, fmt.Errorf("no Slack client (SLACK_BOT_TOKEN)")
	}
	r, tree, err := d.Health(ctx, now)
	if err != nil {
		return 0, 0, fmt.Errorf("build the health report: %w", err)
	}
	repo := d.Repo.Owner + "/" + d.Repo.Name
	for _, p := range report.ForTeams(r, tree) {
		team := tree.Teams[p.Team]
		if p.Empty() || team == nil {
			continue
		}
		to := team.Slack
		if team.Lead != nil {
			to = team.Lead.Slack
		}
		if to == "" {
			b.Log.Warn("monthly digest: the team has no lead and no channel; add lead: to it in teams.yaml", "team", p.Team)
			continue
		}
		if _, err := b.Notify.Post(ctx, to, slack.DigestMessage(repo, month, r, team, p), ""); err != nil {
			failed++
			b.Metrics.failed("slack")
			b.Log.Warn("monthly digest: a message failed", "team", p.Team, "to", to, "err", err)
			continue
		}
		sent++
	}
	return sent, failed, nil
}

// MonthlyDigestEvery checks at once and then every interval whether this month's
// digest is due; a round that fails or panics is logged and the next one runs.
func (b *Bot) MonthlyDigestEvery(ctx context.Context, d Digest, interval time.Duration) {
	guard.Every(ctx, interval, b.Log, "monthly digest", func(ctx context.Context) {
		if err := b.MonthlyDigest(ctx, d); err != nil {
			b.Log.Warn("monthly digest failed; the next round tries again", "err", err)
		}
	})
}

// FirstCommit returns the first commit of head's first-parent history: where the
// digest's marks live (Digest.Root), the same for every replica as long as the
// branch's history is only appended to.
func FirstCommit(r *git.Repository, head plumbing.Hash) (plumbing.Hash, error) {
	c, err := r.CommitObject(head)
	for err == nil && c.NumParents() > 0 {
		c, err = c.Parent(0)
	}
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("walk the first parents of %s: %w", head, err)
	}
	return c.Hash, nil
}
