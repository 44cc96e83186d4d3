package registry

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/contractbot/contractbot/internal/gitrepo"
	"github.com/contractbot/contractbot/internal/versions"
)

// TestStartAnswers503UntilIndexed: a registry made by Start answers at once, every API
// request with 503 in Confluent's error shape and the commit it indexes, while its
// first index is built; then it serves. A second start restores the index from the
// cache and serves the same ids.
func TestStartAnswers503UntilIndexed(t *testing.T) {
	dir, repo := testRepo(t)
	head, err := gitrepo.ResolveBranch(repo, "master")
	if err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	cache := &versions.Cache{Dir: t.TempDir(), Repo: dir, Branch: "master"}
	src := Source{Repo: repo, Branch: "master", Cache: cache, Logger: slog.New(slog.NewTextHandler(&log, nil))}
	gate := make(chan struct{})
	srv, err := Start(src, gate)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	get := func(ts *httptest.Server, path string) (int, http.Header, []byte) {
		t.Helper()
		resp, err := http.Get(ts.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, resp.Header, body
	}

	code, h, body := get(ts, "/subjects")
	var e Error
	if err := json.Unmarshal(body, &e); err != nil || code != http.StatusServiceUnavailable || e.Code != CodeNotReady ||
		!strings.Contains(e.Message, "indexing") || h.Get("Content-Type") != ContentType || h.Get("Retry-After") == "" {
		t.Fatalf("while indexing: %d %s %s (%v)", code, h, body, err)
	}
	if got := h.Get(CommitHeader); got != head.String() {
		t.Errorf("while indexing the registry names commit %q, want the one it indexes, %s", got, head)
	}
	if r := srv.NotReady(); !strings.HasPrefix(r, "indexing: ") || !strings.Contains(r, head.String()[:12]) {
		t.Errorf("NotReady() = %q", r)
	}
	if srv.WithIndex(head.String(), func(*versions.Index) {}) {
		t.Error("WithIndex lends an index before there is one")
	}

	close(gate)
	waitReady(t, srv)
	if !srv.WithIndex(head.String(), func(*versions.Index) {}) {
		t.Error("WithIndex lends no index once the registry serves")
	}
	code, _, first := get(ts, "/schemas/ids/1")
	if code != http.StatusOK {
		t.Fatalf("once indexed: %d %s", code, first)
	}
	if !strings.Contains(log.String(), "from_cache=false") {
		t.Errorf("the first start did not build the index:\n%s", log.String())
	}

	log.Reset()
	again, err := Start(src, nil)
	if err != nil {
		t.Fatal(err)
	}
	waitReady(t, again)
	ts2 := httptest.NewServer(again)
	defer ts2.Close()
	if _, _, second := get(ts2, "/schemas/ids/1"); !bytes.Equal(first, second) {
		t.Errorf("id 1 after a restart from the cache:\n%s\nwant\n%s", second, first)
	}
	if !strings.Contains(log.String(), "from_cache=true") {
		t.Errorf("the second start did not restore the index from the cache:\n%s", log.String())
	}
}

func waitReady(t *testing.T, srv *Server) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); srv.NotReady() != ""; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the registry is still not ready: %s", srv.NotReady())
		}
	}
}

// TestVersionKeysAreTheIndexs: the look-up key a snapshot takes from the versions
// index (no second parse) is the one the registry computes from the text, so that a
// look-up request finds the version.
func TestVersionKeysAreTheIndexs(t *testing.T) {
	srv, _, _ := newTestServer(t)
	n := 0
	for _, se := range srv.snap.Load().subjects {
		for _, ve := range se.versions {
			if want, _ := canonical(ve.typ, ve.text()); ve.norm != want {
				t.Errorf("%s version %d: key %q, computed %q", se.name, ve.v.Version, ve.norm, want)
			}
			n++
		}
	}
	if n == 0 {
		t.Fatal("no versions")
	}
}

// TestEqualBodiesShared: subjects whose GET /config/{s} bodies are equal answer from
// one body, made once per build, and the bodies are still the ones the handlers send.
func TestEqualBodiesShared(t *testing.T) {
	srv, _, _ := newTestServer(t)
	seen := map[string]*byte{}
	shared := 0
	for _, se := range srv.snap.Load().subjects {
		want := mustJSON(configBody{CompatibilityLevel: se.level, Compatibility: se.level, CompatibilityGroup: se.versions[len(se.versions)-1].group})
		if se.current > 0 && string(se.configBody) != string(want) {
			t.Errorf("%s: config body %s, want %s", se.name, se.configBody, want)
		}
		if p, ok := seen[string(se.configBody)]; ok {
			if p != &se.configBody[0] {
				t.Errorf("%s: an equal config body made twice", se.name)
			}
			shared++
		}
		seen[string(se.configBody)] = &se.configBody[0]
	}
	if shared == 0 {
		t.Fatal("no two subjects share a config body")
	}
}
