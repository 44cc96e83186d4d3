package outbound

import (
	"bytes"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/contractbot/contractbot/internal/testutil"
)

// TestHungCallIsCutOffAndLogged: a service that never answers, or stops in the
// middle of its answer, fails the call after the timeout, and the log names the call.
func TestHungCallIsCutOffAndLogged(t *testing.T) {
	srv := testutil.Stalled(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/half" {
			w.Write([]byte("{"))
		}
	})
	for _, path := range []string{"/hang", "/half"} {
		var logs bytes.Buffer
		c := Client("slack", 100*time.Millisecond, slog.New(slog.NewTextHandler(&logs, nil)))
		start := time.Now()
		resp, err := c.Get(srv.URL + path + "?token=secret")
		if err == nil {
			_, err = io.ReadAll(resp.Body)
			resp.Body.Close()
		}
		if took := time.Since(start); took > 5*time.Second {
			t.Errorf("%s: the call took %s", path, took)
		}
		if !errors.Is(err, ErrTimeout) {
			t.Errorf("%s: err %v, want ErrTimeout", path, err)
		}
		if !strings.Contains(logs.String(), "call=\"slack GET "+srv.URL+path+"\"") || strings.Contains(logs.String(), "secret") {
			t.Errorf("%s: the log does not name the call (or shows the query):\n%s", path, logs.String())
		}
	}
}

// TestRedact: passwords never show, whatever prints a URL.
func TestRedact(t *testing.T) {
	u, _ := url.Parse("https://ci:hunter2@registry.example/api?token=abc")
	if got := Redact(u); got != "https://ci:xxxxx@registry.example/api" {
		t.Errorf("Redact = %q", got)
	}
	if got := RedactString("https://ci:hunter2@registry.example"); strings.Contains(got, "hunter2") {
		t.Errorf("RedactString = %q", got)
	}
	if got := RedactString("kafka:broker:9092/topic"); got != "kafka:broker:9092/topic" {
		t.Errorf("RedactString of a Kafka spec = %q", got)
	}
}
