package server

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
)

// DefaultMaxBody is the largest webhook body accepted (GitHub caps payloads at 25 MB;
// the events the bot handles are far smaller).
const DefaultMaxBody = 5 << 20

// Delivery is one verified webhook delivery. GitHub signs the body only: the headers
// it came with (the event name and the delivery id) are as trustworthy as the
// network, so they are bounded before they are kept or logged.
type Delivery struct {
	ID      string // X-GitHub-Delivery
	Event   string // X-GitHub-Event
	Payload []byte
}

// Router turns a delivery into a job for the queue, or nil for an event the bot does
// not act on. An error means the payload is malformed: it is logged and answered 400.
// The bot is one.
type Router interface {
	Route(d Delivery) (*Job, error)
}

// RouterFunc is a Router that is a function.
type RouterFunc func(d Delivery) (*Job, error)

// Route calls f.
func (f RouterFunc) Route(d Delivery) (*Job, error) { return f(d) }

// Events are the GitHub event names counted by name in the deliveries metric; every
// other name is counted as "other", and a request whose signature is not verified as
// "unverified", so what a sender puts in a header never becomes a label value.
var Events = []string{
	"ping", "pull_request", "pull_request_review", "pull_request_review_comment",
	"pull_request_review_thread", "issue_comment", "issues", "push", "create", "delete",
	"check_run", "check_suite", "status", "installation", "installation_repositories",
	"repository", "member", "membership", "team",
}

// Label values of contractbot_webhook_deliveries_total's event label besides Events.
const (
	EventUnverified = "unverified"
	EventOther      = "other"
)

// maxLogged bounds a header value written to a log line; maxDeliveryID bounds the
// delivery ids remembered (GitHub's are 36-character GUIDs).
const (
	maxLogged     = 64
	maxDeliveryID = 128
)

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
			Help: "Webhook deliveries by event (a known GitHub event name, other, or unverified before the signature is checked) and outcome (queued, ignored, duplicate, unauthorized, bad_request, queue_full, too_large).",
		}, []string{"event", "outcome"}),
		QueueFull: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "contractbot_webhook_queue_full_total",
			Help: "Deliveries refused with 503 because the work queue was full.",
		}),
	}
	reg.MustRegister(m.Deliveries, m.QueueFull)
	return m
}

// Webhook is the POST /webhook endpoint: it verifies the signature before it reads
// any header but the signature, hands the work to the queue and answers at once.
type Webhook struct {
	Secret  []byte
	MaxBody int64
	Route   Router
	Queue   *Queue
	Metrics *WebhookMetrics
	Log     *slog.Logger

	mu   sync.Mutex
	seen map[string]bool // ids of recently queued deliveries
	ring []string
}

// ServeHTTP handles one delivery.
func (w *Webhook) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
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
			w.count(EventUnverified, "too_large")
			http.Error(rw, "payload too large", http.StatusRequestEntityTooLarge)
			return
		}
		w.count(EventUnverified, "bad_request")
		http.Error(rw, "could not read the body", http.StatusBadRequest)
		return
	}
	if !validSignature(w.Secret, body, r.Header.Get("X-Hub-Signature-256")) {
		w.count(EventUnverified, "unauthorized")
		w.Log.Warn("webhook signature missing or wrong", "remote", r.RemoteAddr, "bytes", len(body))
		http.Error(rw, "signature missing or wrong", http.StatusUnauthorized)
		return
	}
	event := r.Header.Get("X-GitHub-Event")
	id := r.Header.Get("X-GitHub-Delivery")
	label := eventLabel(event)
	log := w.Log.With("delivery", truncate(id), "event", truncate(event))
	switch {
	case event == "":
		w.count(label, "bad_request")
		http.Error(rw, "no X-GitHub-Event header", http.StatusBadRequest)
		return
	case len(id) > maxDeliveryID:
		w.count(label, "bad_request")
		http.Error(rw, "X-GitHub-Delivery is too long for a delivery id", http.StatusBadRequest)
		return
	case event == "ping":
		w.count(label, "ignored")
		rw.WriteHeader(http.StatusOK)
		_, _ = io.WriteString(rw, "pong\n")
		return
	case id != "" && w.seenBefore(id):
		w.count(label, "duplicate")
		rw.WriteHeader(http.StatusAccepted)
		return
	}
	job, err := w.Route.Route(Delivery{ID: id, Event: event, Payload: body})
	if err != nil {
		w.count(label, "bad_request")
		log.Warn("malformed webhook payload", "err", err)
		http.Error(rw, "malformed payload: "+err.Error(), http.StatusBadRequest)
		return
	}
	if job == nil {
		w.count(label, "ignored")
		rw.WriteHeader(http.StatusAccepted)
		return
	}
	if err := w.Queue.Submit(job); err != nil {
		w.count(label, "queue_full")
		if w.Metrics != nil {
			w.Metrics.QueueFull.Inc()
		}
		log.Warn("work queue full; delivery refused", "key", job.Key)
		rw.Header().Set("Retry-After", "10")
		http.Error(rw, "busy, redeliver later", http.StatusServiceUnavailable)
		return
	}
	w.remember(id)
	w.count(label, "queued")
	rw.WriteHeader(http.StatusAccepted)
}

func (w *Webhook) count(event, outcome string) {
	if w.Metrics != nil {
		w.Metrics.Deliveries.WithLabelValues(event, outcome).Inc()
	}
}

// eventLabel is the metric label of a verified delivery's event name.
func eventLabel(event string) string {
	if slices.Contains(Events, event) {
		return event
	}
	return EventOther
}

// truncate bounds a value taken from a request before it is logged.
func truncate(s string) string {
	if len(s) <= maxLogged {
		return s
	}
	return strings.ToValidUTF8(s[:maxLogged], "") + "…"
}

// recentDeliveries is how many delivery ids are remembered to drop duplicates.
const recentDeliveries = 4096

// seenBefore reports whether a delivery with this id was queued recently.
func (w *Webhook) seenBefore(id string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.seen[id]
}

// remember records the id of a delivery that was verified, parsed and queued. Only
// those are remembered: a refused one (malformed, queue full) must stay deliverable
// again. Two copies of one delivery arriving at the same moment may both be queued;
// the queue keeps one job per pull request and evaluations are idempotent.
func (w *Webhook) remember(id string) {
	if id == "" {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.seen == nil {
		w.seen = map[string]bool{}
	}
	if w.seen[id] {
		return
	}
	w.seen[id] = true
	w.ring = append(w.ring, id)
	if len(w.ring) > recentDeliveries {
		delete(w.seen, w.ring[0])
		w.ring = w.ring[1:]
	}
}

// validSignature checks X-Hub-Signature-256 ("sha256=<hex>") in constant time.
func validSignature(secret, body []byte, header string) bool {
	hexSig, ok := strings.CutPrefix(header, "sha256=")
	if !ok || len(secret) == 0 || len(hexSig) != 2*sha256.Size {
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
