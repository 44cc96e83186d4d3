package events

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"time"

	"github.com/contractbot/contractbot/internal/outbound"
)

// SignatureHeader carries the HMAC-SHA256 of the request body, keyed with the shared
// secret: "sha256=" followed by the hex digest (as GitHub signs its webhooks).
const SignatureHeader = "X-Contractbot-Signature"

// HTTP posts each event to a URL as a structured CloudEvent
// (Content-Type application/cloudevents+json). A 2xx answer is a delivery; a 5xx or
// 429 answer, a timeout or a refused connection is retried with exponential backoff
// and full jitter while attempts and the caller's context last; any other answer is
// an error at once (the endpoint refuses the event: retrying will not help).
type HTTP struct {
	url      string
	secret   []byte
	hc       *http.Client
	attempts int
	base     time.Duration
	timeout  time.Duration
}

// HTTPOption configures an HTTP sink.
type HTTPOption func(*HTTP)

// WithSecret signs every request with secret (header X-Contractbot-Signature).
func WithSecret(secret []byte) HTTPOption { return func(h *HTTP) { h.secret = secret } }

// WithHTTPClient sends requests through hc.
func WithHTTPClient(hc *http.Client) HTTPOption { return func(h *HTTP) { h.hc = hc } }

// WithHTTPRetry makes at most attempts tries per event, the n-th retry waiting up to
// base·2ⁿ⁻¹ (capped at 30 s). The default is 5 attempts from 200 ms.
func WithHTTPRetry(attempts int, base time.Duration) HTTPOption {
	return func(h *HTTP) { h.attempts, h.base = max(attempts, 1), base }
}

// WithHTTPTimeout bounds each attempt (default 10 s).
func WithHTTPTimeout(d time.Duration) HTTPOption { return func(h *HTTP) { h.timeout = d } }

// NewHTTP returns a sink that posts events to url.
func NewHTTP(url string, opts ...HTTPOption) *HTTP {
	h := &HTTP{url: url, hc: http.DefaultClient, attempts: 5, base: 200 * time.Millisecond, timeout: 10 * time.Second}
	for _, o := range opts {
		o(h)
	}
	return h
}

// Sign returns the signature header value of body under secret.
func Sign(secret, body []byte) string {
	m := hmac.New(sha256.New, secret)
	m.Write(body)
	return "sha256=" + hex.EncodeToString(m.Sum(nil))
}

// Verify reports whether header is the signature of body under secret, in constant time.
func Verify(secret, body []byte, header string) bool {
	return hmac.Equal([]byte(header), []byte(Sign(secret, body)))
}

// Send posts e, retrying as the type's comment says.
func (h *HTTP) Send(ctx context.Context, e Event) error {
	body, err := Marshal(e)
	if err != nil {
		return err
	}
	var last error
	for attempt := 0; attempt < h.attempts; attempt++ {
		if attempt > 0 {
			wait := min(h.base<<(attempt-1), 30*time.Second)
			select {
			case <-ctx.Done():
				return fmt.Errorf("post event %s to %s: %w (last error: %w)", e.ID, outbound.RedactString(h.url), ctx.Err(), last)
			case <-time.After(rand.N(wait) + 1):
			}
		}
		retry, err := h.once(ctx, e, body)
		if err == nil {
			return nil
		}
		last = err
		if !retry || ctx.Err() != nil {
			break
		}
	}
	return fmt.Errorf("post event %s to %s: %w", e.ID, outbound.RedactString(h.url), last)
}

// once makes one attempt and says whether a failure is worth retrying.
func (h *HTTP) once(ctx context.Context, e Event, body []byte) (bool, error) {
	ctx, cancel := context.WithTimeout(ctx, h.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.url, bytes.NewReader(body))
	if err != nil {
		return false, err
	}
	req.Header.Set("Content-Type", MediaType)
	req.Header.Set("Ce-Id", e.ID) // lets a proxy deduplicate without parsing the body
	if h.secret != nil {
		req.Header.Set(SignatureHeader, Sign(h.secret, body))
	}
	resp, err := h.hc.Do(req)
	if err != nil {
		var ne net.Error
		return errors.As(err, &ne) || errors.Is(err, context.DeadlineExceeded) || isRefused(err), err
	}
	defer resp.Body.Close()
	msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	if resp.StatusCode/100 == 2 {
		return false, nil
	}
	err = fmt.Errorf("the endpoint answered %s: %s", resp.Status, bytes.TrimSpace(msg))
	return resp.StatusCode >= 500 || resp.StatusCode == http.StatusTooManyRequests, err
}

func isRefused(err error) bool {
	var op *net.OpError
	return errors.As(err, &op)
}

// Close does nothing: the sink holds no connection of its own.
func (h *HTTP) Close() error { return nil }

// String names the sink for messages.
func (h *HTTP) String() string { return "http " + outbound.RedactString(h.url) }
