package registry

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"
)

// fake is a registry that answers GET /subjects/s/versions/latest with a script of
// failures before succeeding, and counts attempts.
type fake struct {
	calls   atomic.Int32
	answer  func(n int32, w http.ResponseWriter, r *http.Request)
	lastReq atomic.Pointer[http.Request]
}

func (f *fake) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n := f.calls.Add(1)
	f.lastReq.Store(r)
	f.answer(n, w, r)
}

func ok(w http.ResponseWriter) {
	w.Header().Set("Content-Type", ContentType)
	_, _ = w.Write([]byte(`{"subject":"s","version":3,"id":7,"schema":"\"string\""}`))
}

func newFake(t *testing.T, answer func(n int32, w http.ResponseWriter, r *http.Request), opts ...Option) (*fake, *Client) {
	t.Helper()
	f := &fake{answer: answer}
	ts := httptest.NewServer(f)
	t.Cleanup(ts.Close)
	c, err := NewClient(ts.URL, append([]Option{WithRetry(3, time.Millisecond)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return f, c
}

func TestClientRetries(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name     string
		answer   func(n int32, w http.ResponseWriter, r *http.Request)
		opts     []Option
		wantErr  func(error) bool
		attempts int32
	}{
		{"two 500s then success", func(n int32, w http.ResponseWriter, _ *http.Request) {
			if n <= 2 {
				w.WriteHeader(500)
				_, _ = w.Write([]byte(`{"error_code":50001,"message":"Error in the backend data store"}`))
				return
			}
			ok(w)
		}, nil, nil, 3},
		{"always 503: gives up after 1+3 attempts", func(_ int32, w http.ResponseWriter, _ *http.Request) {
			w.WriteHeader(503)
			_, _ = w.Write([]byte("<html>upstream unavailable</html>"))
		}, nil, func(err error) bool {
			var e *Error
			return errors.As(err, &e) && e.StatusCode == 503 && e.Code == 503 && e.Temporary()
		}, 4},
		{"404 is not retried", func(_ int32, w http.ResponseWriter, _ *http.Request) {
			w.WriteHeader(404)
			_, _ = w.Write([]byte(`{"error_code":40401,"message":"Subject 's' not found."}`))
		}, nil, IsSubjectNotFound, 1},
		{"409 is not retried", func(_ int32, w http.ResponseWriter, _ *http.Request) {
			w.WriteHeader(409)
			_, _ = w.Write([]byte(`{"error_code":409,"message":"Schema being registered is incompatible with an earlier schema"}`))
		}, nil, IsIncompatible, 1},
		{"401 is not retried", func(_ int32, w http.ResponseWriter, _ *http.Request) {
			w.WriteHeader(401)
			_, _ = w.Write([]byte(`{"error_code":401,"message":"Unauthorized"}`))
		}, nil, IsUnauthorized, 1},
		// The timeouts below are long enough for a request to reach the fake and an
		// answer to come back on a loaded machine under -race (30 and 50 ms flaked once
		// at a load of 20): an attempt that never reached the fake is not counted.
		{"a slow answer is a timeout, retried", func(n int32, w http.ResponseWriter, r *http.Request) {
			if n == 1 {
				select {
				case <-time.After(2 * time.Second):
				case <-r.Context().Done():
				}
				return
			}
			ok(w)
		}, []Option{WithTimeout(500 * time.Millisecond)}, nil, 2},
		{"always slow: gives up", func(_ int32, w http.ResponseWriter, r *http.Request) {
			select {
			case <-time.After(2 * time.Second):
			case <-r.Context().Done():
			}
		}, []Option{WithTimeout(300 * time.Millisecond), WithRetry(2, time.Millisecond)}, func(err error) bool {
			return errors.Is(err, errAttemptTimeout)
		}, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, c := newFake(t, tc.answer, tc.opts...)
			s, err := c.GetLatest(ctx, "s")
			if tc.wantErr == nil {
				if err != nil || s.ID != 7 || s.Version != 3 {
					t.Fatalf("GetLatest: %+v %v", s, err)
				}
			} else if err == nil || !tc.wantErr(err) {
				t.Fatalf("GetLatest error %v is not the one expected", err)
			}
			if got := f.calls.Load(); got != tc.attempts {
				t.Errorf("%d attempts, want %d", got, tc.attempts)
			}
		})
	}
}

// TestClientContext: a cancelled context stops the retries during the backoff.
func TestClientContext(t *testing.T) {
	f, c := newFake(t, func(_ int32, w http.ResponseWriter, _ *http.Request) { w.WriteHeader(500) }, WithRetry(10, time.Second))
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := c.GetByID(ctx, 1)
	if err == nil || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("error %v, want the context's deadline", err)
	}
	if time.Since(start) > time.Second || f.calls.Load() > 3 {
		t.Errorf("took %v and %d attempts after the context ended", time.Since(start), f.calls.Load())
	}
}

// TestClientRequests: auth headers, content type, paths and bodies.
func TestClientRequests(t *testing.T) {
	ctx := context.Background()
	var body string
	f, c := newFake(t, func(_ int32, w http.ResponseWriter, r *http.Request) {
		b := make([]byte, 4096)
		n, _ := r.Body.Read(b)
		body = string(b[:n])
		_, _ = w.Write([]byte(`{"id":42}`))
	}, WithBasicAuth("u", "p"))
	id, err := c.Register(ctx, "a/b-value", "syntax = \"proto3\";", Protobuf, []Reference{{Name: "x.proto", Subject: "x", Version: 1}})
	if err != nil || id != 42 {
		t.Fatalf("Register: %d %v", id, err)
	}
	r := f.lastReq.Load()
	if u, p, _ := r.BasicAuth(); u != "u" || p != "p" {
		t.Errorf("basic auth %q %q", u, p)
	}
	if r.Header.Get("Content-Type") != ContentType || r.Method != "POST" || r.URL.EscapedPath() != "/subjects/a%2Fb-value/versions" {
		t.Errorf("request %s %s %q", r.Method, r.URL.EscapedPath(), r.Header.Get("Content-Type"))
	}
	want := `{"schema":"syntax = \"proto3\";","schemaType":"PROTOBUF","references":[{"name":"x.proto","subject":"x","version":1}]}`
	if body != want {
		t.Errorf("body %s\nwant %s", body, want)
	}
	f2, c2 := newFake(t, func(_ int32, w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte(`{"compatibility":"FULL"}`))
	}, WithBearerToken("tok"))
	if err := c2.SetConfig(ctx, "s", "FULL"); err != nil {
		t.Fatal(err)
	}
	if r := f2.lastReq.Load(); r.Header.Get("Authorization") != "Bearer tok" || r.Method != "PUT" || r.URL.Path != "/config/s" {
		t.Errorf("SetConfig request %s %s %q", r.Method, r.URL.Path, r.Header.Get("Authorization"))
	}
	if _, err := NewClient("ftp://x"); err == nil {
		t.Error("NewClient accepted an ftp URL")
	}
}
