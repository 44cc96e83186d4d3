package bot

import (
	"cmp"
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"

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
	// Branch is its default branch, which the digest reports on.
	Branch DigestBranch
	// Lease is DefaultDigestLease when 0.
	Lease time.Duration
}

// DigestBranch is the default branch a digest reports on.
type DigestBranch interface {
	// Root returns the first commit of its first-parent history, where the marks
	// live (the same for every replica and every month).
	Root(ctx context.Context) (string, error)
	// Health builds the report of its head and returns the tree it was built from
	// (its teams.yaml says where each team's part goes).
	Health(ctx context.Context, now time.Time) (*report.Health, *contract.Tree, error)
}

// ledger is the digest's ledger of marks on root (internal/bot/memory: claims in
// commit statuses).
func (b *Bot) digestLedger(gh memory.Statuses, d Digest, root string) memory.Ledger {
	return memory.Ledger{Keeper: b.keeper(), GH: gh, Owner: d.Repo.Owner, Repo: d.Repo.Name, SHA: root,
		Context: DigestContext, Settle: cmp.Or(b.ClaimSettle, DefaultClaimSettle), Lease: cmp.Or(d.Lease, DefaultDigestLease), Log: b.Log}
}

// writeMark writes a signed mark of the month ("2026-12 claim TOKEN").
func (b *Bot) writeMark(ctx context.Context, gh memory.Statuses, d Digest, root, state, text string) error {
	f := strings.Fields(text)
	if len(f) < 3 {
		return fmt.Errorf("a digest mark is month, kind and token: %q", text)
	}
	return b.digestLedger(gh, d, root).Write(ctx, state, f[0], f[1], f[2], strings.Join(f[3:], " "))
}

// MonthlyDigest sends this month's digest unless it was sent or another replica is
// sending it. Replicas agree through the marks of a ledger (memory.Ledger.Claim): the
// oldest live claim sends, every replica sees the same oldest claim.
func (b *Bot) MonthlyDigest(ctx context.Context, d Digest) error {
	now := b.now().UTC()
	month := now.Format("2006-01")
	if len(b.StateKey) == 0 || b.Self == "" {
		return fmt.Errorf("monthly digest: %w, or the bot's login is unknown: it cannot sign or recognise its marks", ErrNoKey)
	}
	api, _, err := b.clients(ctx, d.Repo.Owner, d.Repo.Name, 0)
	if err != nil {
		return fmt.Errorf("monthly digest of %s/%s: %w", d.Repo.Owner, d.Repo.Name, err)
	}
	gh, ok := api.(memory.Statuses)
	if !ok {
		return fmt.Errorf("monthly digest: the GitHub client cannot list commit statuses")
	}
	root, err := d.Branch.Root(ctx)
	if err != nil {
		return fmt.Errorf("monthly digest: find the first commit of the default branch: %w", err)
	}
	// A month's digest is sent in that month: its marks are read from the month's
	// start, never the ledger's whole history; and once a replica knows it was sent
	// it reads them no more that month (the rounds are hourly).
	seen := strings.ToLower(d.Repo.Owner+"/"+d.Repo.Name) + "@" + month
	if _, ok := b.digested.Load(seen); ok {
		return nil
	}
	start := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC)
	c, err := b.digestLedger(gh, d, root).Claim(ctx, []string{month}, start)
	if err != nil {
		return fmt.Errorf("monthly digest: %w", err)
	}
	if _, sent := c.Others[month]; sent {
		b.digested.Store(seen, true)
		return nil
	}
	if !c.Won(month) {
		b.Log.Debug("monthly digest: another replica sends it", "month", month)
		return nil
	}
	n, failed, err := b.sendDigest(ctx, d, month, now)
	if err == nil && n == 0 && failed > 0 {
		err = fmt.Errorf("no digest message of %s could be sent (%d failed)", month, failed)
	}
	note := fmt.Sprintf("%d/%d", n, n+failed)
	if derr := c.Done(ctx, month, note, err); derr != nil {
		b.Log.Warn("monthly digest: its mark could not be written", "month", month, "err", derr)
	}
	if err != nil {
		return fmt.Errorf("monthly digest: %s (released for the next round): %w", month, err)
	}
	b.digested.Store(seen, true)
	b.Log.Info("monthly digest sent", "month", month, "messages", n, "failed", failed)
	return nil
}

// sendDigest posts each team's part that has something to say to its lead (or its
// channel): how many were sent and how many failed.
func (b *Bot) sendDigest(ctx context.Context, d Digest, month string, now time.Time) (sent, failed int, err error) {
	if b.Notify == nil {
		return 0, 0, fmt.Errorf("no Slack client (SLACK_BOT_TOKEN)")
	}
	r, tree, err := d.Branch.Health(ctx, now)
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
