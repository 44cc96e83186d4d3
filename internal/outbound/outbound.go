// Package outbound bounds the HTTP calls contractbot makes to other services (GitHub,
// Slack, schema registries, event sinks): each request has a deadline that covers its
// answer's headers and body, and a request cut off by it is logged once with what it
// was (the service, the method and the URL, redacted), so a stalled service shows up
// in the log instead of holding a worker silently. What retries a call is the caller's
// business: a timed-out request fails like a network error.
package outbound

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"sync"
	"time"
)

// DefaultTimeout bounds one request when the caller names no other figure.
const DefaultTimeout = 30 * time.Second

// ErrTimeout is the cause of a request cut off by its deadline.
var ErrTimeout = errors.New("no answer in time")

// Transport is an http.RoundTripper that gives each request Timeout (its headers and
// its body) and logs a request that ran out of it.
type Transport struct {
	// Service names the other side in the log ("github", "slack").
	Service string
	// Timeout bounds one request (DefaultTimeout when 0).
	Timeout time.Duration
	// Base sends the requests (http.DefaultTransport when nil).
	Base http.RoundTripper
	// Log receives one line per request cut off (nothing when nil).
	Log *slog.Logger
}

// Client is an http.Client whose requests go through a Transport of service.
func Client(service string, timeout time.Duration, log *slog.Logger) *http.Client {
	return &http.Client{Transport: &Transport{Service: service, Timeout: timeout, Log: log}}
}

func (t *Transport) timeout() time.Duration {
	if t.Timeout > 0 {
		return t.Timeout
	}
	return DefaultTimeout
}

// RoundTrip sends r with its deadline; the deadline stays on while the body is read
// and ends when it is closed.
func (t *Transport) RoundTrip(r *http.Request) (*http.Response, error) {
	base := t.Base
	if base == nil {
		base = http.DefaultTransport
	}
	ctx, cancel := context.WithTimeoutCause(r.Context(), t.timeout(), ErrTimeout)
	resp, err := base.RoundTrip(r.WithContext(ctx))
	if err != nil {
		cancel()
		if errors.Is(context.Cause(ctx), ErrTimeout) && r.Context().Err() == nil {
			t.logTimeout(r, "waiting for the answer")
			return nil, fmt.Errorf("%s %s %s: %w after %s", t.Service, r.Method, Redact(r.URL), ErrTimeout, t.timeout())
		}
		return nil, err
	}
	resp.Body = &body{ReadCloser: resp.Body, cancel: cancel, t: t, r: r, ctx: ctx}
	return resp, nil
}

func (t *Transport) logTimeout(r *http.Request, while string) {
	if t.Log != nil {
		t.Log.Warn("an outbound call got no answer in time and was cut off",
			"call", t.Service+" "+r.Method+" "+Redact(r.URL), "timeout", t.timeout().String(), "while", while)
	}
}

// body ends the request's deadline when the answer is closed and logs a body cut off.
type body struct {
	io.ReadCloser
	cancel context.CancelFunc
	t      *Transport
	r      *http.Request
	ctx    context.Context
	once   sync.Once
}

func (b *body) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil && err != io.EOF && errors.Is(context.Cause(b.ctx), ErrTimeout) && b.r.Context().Err() == nil {
		b.once.Do(func() { b.t.logTimeout(b.r, "reading the answer") })
		return n, fmt.Errorf("%s %s %s: reading the answer: %w after %s", b.t.Service, b.r.Method, Redact(b.r.URL), ErrTimeout, b.t.timeout())
	}
	return n, err
}

func (b *body) Close() error {
	err := b.ReadCloser.Close()
	b.cancel()
	return err
}

// Redact is u as it may be printed: a password is replaced by xxxxx
// (url.URL.Redacted) and the query, which may carry a token, is dropped.
func Redact(u *url.URL) string {
	if u == nil {
		return ""
	}
	c := *u
	c.RawQuery, c.ForceQuery = "", false
	return c.Redacted()
}

// RedactString is the URL in s redacted as Redact does; text that does not parse as a
// URL with a scheme is returned as it is.
func RedactString(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.Scheme == "" || u.User == nil {
		return s
	}
	return u.Redacted()
}
