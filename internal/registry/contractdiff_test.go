package registry

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
)

// TestDiffDataContract: a registry that holds a Git version's schema with other
// metadata and without its rules is drift, each difference named; the same registry
// with Git's data contract is none.
func TestDiffDataContract(t *testing.T) {
	_, repo := clientsRepo(t)
	srv, err := NewServer(Source{Repo: repo})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	clean := httptest.NewServer(srv)
	defer clean.Close()
	c, _ := NewClient(clean.URL)
	rep, err := Diff(ctx, c, repo, srv.ix)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Drift) != 0 {
		t.Fatalf("drift against the embedded registry: %+v", rep.Drift)
	}
	const path = "/subjects/shop.payment-value/versions/1"
	drifted := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != path {
			srv.ServeHTTP(w, r)
			return
		}
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, r)
		var sc Schema
		if err := json.Unmarshal(rec.Body.Bytes(), &sc); err != nil {
			t.Error(err)
		}
		sc.Metadata = &Metadata{Properties: map[string]string{"owner": "someone-else", "tier": "standard"}}
		sc.RuleSet = nil
		write(w, mustJSON(sc))
	}))
	defer drifted.Close()
	c2, _ := NewClient(drifted.URL)
	rep, err = Diff(ctx, c2, repo, srv.ix)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Drift) != 1 || rep.Drift[0].Kind != DataContractDiffers || rep.Drift[0].Subject != "shop.payment-value" || rep.Drift[0].Version != 1 {
		t.Fatalf("drift = %+v, want data_contract of shop.payment-value version 1", rep.Drift)
	}
	want := []string{
		`metadata property owner is "someone-else" in the registry, "shop" in contract.yaml`,
		`domain rule "positive" (WRITE CEL_FIELD CONDITION) is not in the registry`,
	}
	if !slices.Equal(rep.Drift[0].Differences, want) {
		t.Errorf("differences = %q, want %q", rep.Drift[0].Differences, want)
	}
	t.Log(rep.Drift[0].Message)
}
