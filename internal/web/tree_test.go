package web

import (
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/contractbot/contractbot/internal/gitrepo"
	"github.com/contractbot/contractbot/internal/testutil"
	"github.com/contractbot/contractbot/internal/versions"
)

// TestSharedVersions: with an index lent at the right commit (serve lends the embedded
// registry's), the pages build no versions index of their own and still show each
// subject's latest version; an index at another commit is not used.
func TestSharedVersions(t *testing.T) {
	r := testutil.ExampleRepo(t)
	head, err := gitrepo.ResolveBranch(r.Git, "")
	if err != nil {
		t.Fatal(err)
	}
	lent, err := versions.Build(r.Git, head)
	if err != nil {
		t.Fatal(err)
	}
	for _, at := range []plumbing.Hash{head, plumbing.NewHash("0123456789012345678901234567890123456789")} {
		asked := 0
		tree := &Tree{Repo: r.Git, SharedVersions: func(h plumbing.Hash, fn func(*versions.Index)) bool {
			asked++
			if h != at {
				return false
			}
			fn(lent)
			return true
		}}
		p := &Pages{Tree: tree, Now: func() time.Time { return pagesNow }, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
		s, err := p.current()
		if err != nil {
			t.Fatal(err)
		}
		if asked == 0 || s.versions == nil || len(s.versions["orders.order-created-value"]) != 1 {
			t.Errorf("lent at %.7s: asked %d times; versions %v", at, asked, s.versions["orders.order-created-value"])
		}
		if own := tree.ix != nil; own != (at != head) {
			t.Errorf("lent at %.7s: built its own index: %v, want %v", at, own, at != head)
		}
	}
}
