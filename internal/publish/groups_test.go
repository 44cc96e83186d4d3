package publish

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"github.com/twmb/franz-go/pkg/sr"

	"github.com/contractbot/contractbot/internal/events"
	"github.com/contractbot/contractbot/internal/publish/publishtest"
	"github.com/contractbot/contractbot/internal/registry"
)

// A subject that declares a compatibility group is published as Confluent's data
// contracts expect (issue 33): PUT /config/{subject} with compatibilityGroup before
// the version, and each version with its group's value in its metadata properties,
// so a registry checks a new major version against nothing and clients pick their
// group with use.latest.with.metadata. franz-go's client reads both back from the
// registry publish wrote to, and from the embedded registry serving the same history.
func TestPublishCompatibilityGroup(t *testing.T) {
	dir, repo := exampleRepo(t)
	const subject = "dws.gmv-1min-value"
	contractFile := filepath.Join(dir, "contracts/dws/gmv-1min/contract.yaml")
	edit(t, contractFile, "\nfields:\n", "\ncompatibility_group: {key: application.major.version, value: \"1\"}\nfields:\n")
	commit(t, repo, "gmv: group 1", 1)
	edit(t, filepath.Join(dir, "contracts/dws/gmv-1min/gmv_1min.avsc"), `"name": "gmv_cents"`, `"name": "gmv"`)
	edit(t, contractFile, "  gmv_cents:\n", "  gmv:\n")
	edit(t, contractFile, `value: "1"`, `value: "2"`)
	edit(t, filepath.Join(dir, "contracts/dw/order-detail/consumers/dws-gmv-1min.yaml"), "    gmv_cents: [amount_cents]", "    gmv: [amount_cents]")
	head := commit(t, repo, "gmv: group 2", 2)

	fake := publishtest.NewRegistry()
	ts := httptest.NewServer(fake)
	defer ts.Close()
	c, err := registry.NewClient(ts.URL)
	if err != nil {
		t.Fatal(err)
	}
	sink, err := events.OpenFile(filepath.Join(t.TempDir(), "events.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer sink.Close()
	m, err := OpenFileMarker(filepath.Join(t.TempDir(), "published.json"))
	if err != nil {
		t.Fatal(err)
	}
	p := &Publisher{Repo: repo, Registry: c, Sink: sink, Marker: m, Source: "test"}
	if _, err := p.Publish(context.Background(), head); err != nil {
		t.Fatal(err)
	}

	emb, err := registry.NewServer(registry.Source{Repo: repo})
	if err != nil {
		t.Fatal(err)
	}
	ets := httptest.NewServer(emb)
	defer ets.Close()
	for name, url := range map[string]string{"publish's registry": ts.URL, "embedded registry": ets.URL} {
		cl, err := sr.NewClient(sr.URLs(url))
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		cfg := cl.Compatibility(ctx, subject)[0]
		if cfg.Err != nil || cfg.Group != "application.major.version" || cfg.Level != sr.CompatBackward {
			t.Errorf("%s: config of %s = %+v, want BACKWARD with compatibilityGroup application.major.version", name, subject, cfg)
		}
		latest, err := cl.SchemaByVersion(ctx, subject, -1)
		if err != nil {
			t.Fatal(err)
		}
		prev, err := cl.SchemaByVersion(ctx, subject, latest.Version-1)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range []struct {
			got  sr.SubjectSchema
			want string
		}{{latest, "2"}, {prev, "1"}} {
			if v.got.SchemaMetadata == nil || v.got.SchemaMetadata.Properties["application.major.version"] != v.want {
				t.Errorf("%s: version %d metadata = %+v, want application.major.version %s", name, v.got.Version, v.got.SchemaMetadata, v.want)
			}
		}
		if other := cl.Compatibility(ctx, "orders.order-created-value")[0]; other.Group != "" {
			t.Errorf("%s: a subject without a group has compatibilityGroup %q", name, other.Group)
		}
	}
	// A reader that stays on group 1 (use.latest.with.metadata
	// application.major.version=1) finds group 1's latest version in the embedded
	// registry.
	req, err := http.NewRequestWithContext(context.Background(), http.MethodGet, ets.URL+"/subjects/"+subject+"/metadata?key=application.major.version&value=1", nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var v1 struct {
		Version  int `json:"version"`
		Metadata struct {
			Properties map[string]string `json:"properties"`
		} `json:"metadata"`
	}
	if err := json.NewDecoder(res.Body).Decode(&v1); err != nil || res.StatusCode != http.StatusOK || v1.Metadata.Properties["application.major.version"] != "1" {
		t.Errorf("latest of group 1: status %d, %+v, %v", res.StatusCode, v1, err)
	}
}
