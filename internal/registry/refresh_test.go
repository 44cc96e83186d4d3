package registry

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	gitobject "github.com/go-git/go-git/v5/plumbing/object"

	"github.com/contractbot/contractbot/internal/versions"
)

// TestRefresh: a new commit on the branch is served after Refresh (and by Follow),
// with ids unchanged, while readers keep reading.
func TestRefresh(t *testing.T) {
	dir, repo, srv, c := servedRepo(t)
	ctx := context.Background()
	before, _ := c.GetLatest(ctx, "orders.order-created-value")
	if changed, err := srv.Refresh(); err != nil || changed {
		t.Fatalf("Refresh without a new commit: %v %v", changed, err)
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				if _, err := c.GetLatest(ctx, "orders.order-created-value"); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	edit(t, filepath.Join(dir, "contracts/users/user-profile/user_profile.avsc"), `"doc"`, `"doc": "Edited.", "x-doc"`)
	edit(t, filepath.Join(dir, "contracts/orders/order-status-changed/contract.yaml"), "compatibility: BACKWARD\n", "compatibility: FULL\n")
	commitAll(t, repo, "user-profile: doc; order-status-changed: FULL", 3)
	fctx, cancel := context.WithCancel(ctx)
	go srv.Follow(fctx, 10*time.Millisecond)
	deadline := time.Now().Add(5 * time.Second)
	var vs []int
	for time.Now().Before(deadline) {
		if vs, _ = c.Versions(ctx, "users.user-profile-value"); len(vs) == 2 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	close(stop)
	wg.Wait()
	if len(vs) != 2 {
		t.Fatalf("the new commit is not served: versions %v", vs)
	}
	after, _ := c.GetLatest(ctx, "orders.order-created-value")
	if after.ID != before.ID || after.Version != before.Version {
		t.Errorf("order-created moved from id %d to %d", before.ID, after.ID)
	}
	if lvl, err := c.GetConfig(ctx, "orders.order-status-changed-value"); err != nil || lvl != "FULL" {
		t.Errorf("a level changed alone is not served: %q %v", lvl, err)
	}
	up, _ := c.GetLatest(ctx, "users.user-profile-value")
	if up.Version != 2 || up.ID <= after.ID {
		t.Errorf("user-profile version 2 has id %d", up.ID)
	}
}

// TestDiff: Git against the embedded registry shows no drift; against a registry that
// lost a version, gained one behind Git's back, has another level and an extra
// subject, each is reported.
func TestDiff(t *testing.T) {
	dir, repo := testRepo(t)
	_ = dir
	srv, err := NewServer(Source{Repo: repo})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	c, _ := NewClient(ts.URL)
	ctx := context.Background()
	rep, err := Diff(ctx, c, repo, srv.ix)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Drift) != 0 || rep.Subjects != 13 {
		t.Fatalf("drift against the embedded registry (%d subjects): %+v", rep.Subjects, rep.Drift)
	}
	drifted := httptest.NewServer(driftHandler(srv))
	defer drifted.Close()
	c2, _ := NewClient(drifted.URL)
	rep, err = Diff(ctx, c2, repo, srv.ix)
	if err != nil {
		t.Fatal(err)
	}
	want := map[DriftKind]string{Missing: "orders.order-created-value", Unregistered: "users.user-profile-value", LevelDiffers: "dws.gmv-1min-value", UnknownSubject: "rogue-value"}
	if len(rep.Drift) != len(want) {
		t.Errorf("%d drift items, want %d: %+v", len(rep.Drift), len(want), rep.Drift)
	}
	for _, d := range rep.Drift {
		if want[d.Kind] != d.Subject {
			t.Errorf("unexpected drift %+v", d)
		}
	}
}

// driftHandler is the embedded registry with drift: order-created lost version 2,
// user-profile gained a version 2, gmv-1min is at BACKWARD, and rogue-value exists.
func driftHandler(srv *Server) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/subjects":
			var names []string
			for _, s := range srv.snap.Load().subjects {
				names = append(names, s.name)
			}
			write(w, mustJSON(append(names, "rogue-value")))
		case "/subjects/orders.order-created-value/versions":
			write(w, []byte("[1]"))
		case "/subjects/orders.order-created-value": // a look-up finds version 1 only
			rec := httptest.NewRecorder()
			srv.ServeHTTP(rec, r)
			var found Schema
			if json.Unmarshal(rec.Body.Bytes(), &found) == nil && found.Version == 1 {
				write(w, rec.Body.Bytes())
				return
			}
			writeError(w, http.StatusNotFound, CodeSchemaNotFound, "Schema not found")
		case "/subjects/users.user-profile-value/versions":
			write(w, []byte("[1,2]"))
		case "/subjects/users.user-profile-value/versions/2":
			write(w, []byte(`{"subject":"users.user-profile-value","version":2,"id":99,"schema":"\"string\""}`))
		case "/config/dws.gmv-1min-value":
			write(w, []byte(`{"compatibilityLevel":"BACKWARD"}`))
		default:
			srv.ServeHTTP(w, r)
		}
	})
}

// TestRefreshRewrittenHistory: a branch whose indexed head is no longer a first-parent
// ancestor is refused, and the last good snapshot stays served.
func TestRefreshRewrittenHistory(t *testing.T) {
	dir, repo := testRepo(t)
	srv, err := NewServer(Source{Repo: repo})
	if err != nil {
		t.Fatal(err)
	}
	head := srv.Head()
	ref, _ := repo.Head()
	c, _ := repo.CommitObject(ref.Hash())
	wt, _ := repo.Worktree()
	edit(t, filepath.Join(dir, "contracts/users/user-profile/user_profile.avsc"), `"doc"`, `"doc": "Rewritten.", "x-doc"`)
	if err := wt.AddWithOptions(&git.AddOptions{All: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := wt.Commit("rewrite", &git.CommitOptions{Parents: []plumbing.Hash{c.ParentHashes[0]},
		Author: &gitobject.Signature{Name: "t", Email: "t@example.com", When: time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)}}); err != nil {
		t.Fatal(err)
	}
	changed, err := srv.Refresh()
	if !errors.Is(err, versions.ErrHistoryRewritten) || changed {
		t.Fatalf("Refresh after a rewrite: %v %v, want ErrHistoryRewritten", changed, err)
	}
	if srv.Head() != head {
		t.Errorf("served head moved from %s to %s", head, srv.Head())
	}
	rec := httptest.NewRecorder()
	srv.ServeHTTP(rec, httptest.NewRequest("GET", "/subjects/users.user-profile-value/versions", nil))
	if rec.Body.String() != "[1]" {
		t.Errorf("versions after a refused rewrite: %s", rec.Body.String())
	}
}

// TestRefreshBoundsTheSnapshotBlock: a refresh keeps the bodies of what did not
// change and writes new ones for what did into the snapshot block, so the bodies it
// replaced stay there; once the block has taken as much again as the last full build
// did, the next build starts a new block (every subject made anew) and the old one
// goes with the old snapshot. Across many commits the block stays under twice a full
// build's bytes plus one build, and every answer stays right.
func TestRefreshBoundsTheSnapshotBlock(t *testing.T) {
	dir, repo, srv, c := servedRepo(t)
	ctx := context.Background()
	before, _ := c.GetLatest(ctx, "orders.order-created-value")
	first := srv.b.snapBytes
	path := filepath.Join(dir, "contracts/orders/order-status-changed/contract.yaml")
	levels := []string{"BACKWARD", "FULL"}
	newBlocks, most := 0, int64(0)
	last := first
	for i := range 60 {
		edit(t, path, "compatibility: "+levels[i%2]+"\n", "compatibility: "+levels[(i+1)%2]+"\n")
		commitAll(t, repo, "order-status-changed: "+levels[(i+1)%2], i%60)
		if changed, err := srv.Refresh(); err != nil || !changed {
			t.Fatalf("commit %d: Refresh %v %v", i, changed, err)
		}
		if srv.b.snapBytes != last {
			newBlocks, last = newBlocks+1, srv.b.snapBytes
		}
		most = max(most, srv.b.snapBytes.Len())
		if lvl, err := c.GetConfig(ctx, "orders.order-status-changed-value"); err != nil || lvl != levels[(i+1)%2] {
			t.Fatalf("commit %d: level %q %v, want %s", i, lvl, err, levels[(i+1)%2])
		}
	}
	if newBlocks == 0 {
		t.Fatalf("60 refreshes, block at %d bytes after a full build of %d: never a new block", srv.b.snapBytes.Len(), srv.b.fullBytes)
	}
	if full := first.Len(); most > 3*full {
		t.Errorf("the snapshot block reached %d bytes; a full build takes %d (want at most about twice that and one build)", most, full)
	}
	after, err := c.GetLatest(ctx, "orders.order-created-value")
	if err != nil || after.ID != before.ID || after.Schema != before.Schema {
		t.Errorf("order-created after the new blocks: %+v, %v; want %+v", after, err, before)
	}
	if byID, err := c.GetByID(ctx, before.ID); err != nil || byID.Schema != before.Schema {
		t.Errorf("id %d after the new blocks: %+v, %v", before.ID, byID, err)
	}
}

// servedRepo is testRepo's repository, its registry on its master branch served over
// HTTP until the test ends, and a client of it.
func servedRepo(t *testing.T) (string, *git.Repository, *Server, *Client) {
	t.Helper()
	dir, repo := testRepo(t)
	srv, err := NewServer(Source{Repo: repo, Branch: "master"})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	c, _ := NewClient(ts.URL)
	return dir, repo, srv, c
}
