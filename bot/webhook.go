// Package bot is the GitHub App: it receives webhooks, evaluates pull requests with
// the shared verdict and converges GitHub's state (one sticky comment, a check run,
// review requests, labels). This file holds the webhook endpoint.
package bot

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
)

// DefaultMaxBody is the largest webhook body accepted (GitHub caps payloads at 25 MB;
// the events the bot handles are far smaller).
const DefaultMaxBody = 5 << 20

// Delivery is one verified webhook delivery.
type Delivery struct {
	ID      string // X-GitHub-Delivery
	Event   string // X-GitHub-Event
	Payload []byte
}

// Router turns a delivery into a job for the queue, or nil for an event the bot does
// not act on. An error means the payload is malformed: it is logged and answered 400.
type Router func(d Delivery) (*Job, error)

// WebhookMetrics counts what the endpoint did.
type WebhookMetrics struct {
	Deliveries *prometheus.CounterVec // by event and outcome
	QueueFull  prometheus.Counter
}

// NewWebhookMetrics registers the endpoint's metrics with reg.
func NewWebhookMetrics(reg prometheus.Registerer) *WebhookMetrics {
	m := &WebhookMetrics{
		Deliveries: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "contractbot_webhook_deliveries_total",
			Help: "Webhook deliveries by event and outcome (queued, ignored, duplicate, unauthorized, bad_request, queue_full, too_large).",
		}, []string{"event", "outcome"}),
		QueueFull: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "contractbot_webhook_queue_full_total",
			Help: "Deliveries refused with 503 because the work queue was full.",
		}),
	}
	reg.MustRegister(m.Deliveries, m.QueueFull)
	return m
}

// Webhook is the POST /webhook endpoint: it verifies the signature before anything
// else, hands the work to the queue and answers at once.
type Webhook struct {
	Secret  []byte
	MaxBody int64
	Route   Router
	Queue   *Queue
	Metrics *WebhookMetrics
	Log     *slog.Logger

	mu   sync.Mutex
	seen map[string]bool // recent delivery ids
	ring []string
}

// ServeHTTP handles one delivery.
func (w *Webhook) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
	event := r.Header.Get("X-GitHub-Event")
	id := r.Header.Get("X-GitHub-Delivery")
	log := w.Log.With("delivery", id, "event", event)
	if r.Method != http.MethodPost {
		rw.Header().Set("Allow", http.MethodPost)
		http.Error(rw, "use POST", http.StatusMethodNotAllowed)
		return
	}
	max := w.MaxBody
	if max <= 0 {
		max = DefaultMaxBody
	}
	body, err := io.ReadAll(http.MaxBytesReader(rw, r.Body, max))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			w.count(event, "too_large")
			http.Error(rw, "payload too large", http.StatusRequestEntityTooLarge)
			return
		}
		w.count(event, "bad_request")
		http.Error(rw, "could not read the body", http.StatusBadRequest)
		return
	}
	if !validSignature(w.Secret, body, r.Header.Get("X-Hub-Signature-256")) {
		w.count(event, "unauthorized")
		log.Warn("webhook signature missing or wrong")
		http.Error(rw, "signature missing or wrong", http.StatusUnauthorized)
		return
	}
	if event == "" {
		w.count(event, "bad_request")
		http.Error(rw, "no X-GitHub-Event header", http.StatusBadRequest)
		return
	}
	if event == "ping" {
		w.count(event, "ignored")
		rw.WriteHeader(http.StatusOK)
		io.WriteString(rw, "pong\n")
		return
	}
	if id != "" && w.duplicate(id) {
		w.count(event, "duplicate")
		rw.WriteHeader(http.StatusAccepted)
		return
	}
	job, err := w.Route(Delivery{ID: id, Event: event, Payload: body})
	if err != nil {
		w.count(event, "bad_request")
		log.Warn("malformed webhook payload", "err", err)
		http.Error(rw, "malformed payload: "+err.Error(), http.StatusBadRequest)
		return
	}
	if job == nil {
		w.count(event, "ignored")
		rw.WriteHeader(http.StatusAccepted)
		return
	}
	if err := w.Queue.Submit(job); err != nil {
		w.count(event, "queue_full")
		if w.Metrics != nil {
			w.Metrics.QueueFull.Inc()
		}
		w.forget(id) // GitHub's redelivery must not count as a duplicate
		log.Warn("work queue full; delivery refused", "key", job.Key)
		rw.Header().Set("Retry-After", "10")
		http.Error(rw, "busy, redeliver later", http.StatusServiceUnavailable)
		return
	}
	w.count(event, "queued")
	rw.WriteHeader(http.StatusAccepted)
}

func (w *Webhook) count(event, outcome string) {
	if w.Metrics != nil {
		w.Metrics.Deliveries.WithLabelValues(event, outcome).Inc()
	}
}

// recentDeliveries is how many delivery ids are remembered to drop duplicates.
const recentDeliveries = 4096

// duplicate reports whether id was seen recently, and remembers it.
func (w *Webhook) duplicate(id string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.seen == nil {
		w.seen = map[string]bool{}
	}
	if w.seen[id] {
		return true
	}
	w.seen[id] = true
	w.ring = append(w.ring, id)
	if len(w.ring) > recentDeliveries {
		delete(w.seen, w.ring[0])
		w.ring = w.ring[1:]
	}
	return false
}

func (w *Webhook) forget(id string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.seen, id)
}

// validSignature checks X-Hub-Signature-256 ("sha256=<hex>") in constant time.
func validSignature(secret, body []byte, header string) bool {
	hexSig, ok := strings.CutPrefix(header, "sha256=")
	if !ok || len(secret) == 0 {
		return false
	}
	got, err := hex.DecodeString(hexSig)
	if err != nil {
		return false
	}
	mac := hmac.New(sha256.New, secret)
	mac.Write(body)
	return hmac.Equal(got, mac.Sum(nil))
}

// Sign computes the X-Hub-Signature-256 value GitHub sends for body.
func Sign(secret, body []byte) string {
	mac := hmac.New(sha256.New, secret)
	mac.Write(body)
	return "sha256=" + hex.EncodeToString(mac.Sum(nil))
}
