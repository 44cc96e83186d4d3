// Package server is the HTTP server of `contractbot serve`: the webhook endpoint
// (body limit, signature check, delivery de-duplication), the keyed work queue that
// runs what a delivery asks for (retries, panics recovered, outcomes counted),
// /healthz, /readyz and /metrics, and a mount point for the read side (pages, the
// embedded registry). It knows nothing of what a job does: the bot supplies a Router
// that turns a delivery into a job, so the read side runs without the bot.
package server

import (
	"cmp"
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"golang.org/x/net/netutil"
)

// MaxHeaderBytes bounds a request's header block. GitHub's deliveries send a few
// hundred bytes of headers and browsers a few KB; a larger block is answered 431
// before any handler runs.
const MaxHeaderBytes = 64 << 10

// Config configures the server.
type Config struct {
	WebhookSecret []byte
	// Workers evaluate pull requests in parallel; QueueSize bounds the pull requests
	// that may wait (a full queue answers 503 and GitHub redelivers later).
	Workers, QueueSize int
	// Attempts and Backoff bound the retries of a failed job (see QueueConfig).
	Attempts int
	Backoff  time.Duration
	// Route turns webhook deliveries into jobs; nil serves the read side only (no
	// /webhook).
	Route Router
	// MaxBody bounds a webhook body (DefaultMaxBody when 0).
	MaxBody int64
	Log     *slog.Logger
	// Mounts add more handlers to the server's mux (the embedded registry, pages),
	// in order; those that are also Fronts answer their hot reads before it.
	Mounts []Mounter
	// SeparateMetrics leaves /metrics off the main mux: serve MetricsHandler on
	// another listener instead (ServeMetrics).
	SeparateMetrics bool
	// MaxConns bounds the connections held at once (DefaultMaxConns when 0);
	// BodiesPerClient the requests with a body one address has in flight
	// (DefaultBodiesPerClient when 0).
	MaxConns, BodiesPerClient int
	// Readiness, when set, is what /readyz says besides the server's own state
	// (serve passes the embedded registry's, with the bot's wants).
	Readiness Readiness
}

// Readiness says whether what the server serves can answer.
type Readiness interface {
	// NotReady says why the read side cannot answer yet ("" once it can): /readyz
	// then answers 503 "not ready: <reason>" (the embedded registry says
	// "indexing: ..." while it builds its first index).
	NotReady() string
	// Degraded says why the read side serves an older commit than its branch's, or
	// lacks something ("" when it does not): /readyz then answers 200 "degraded:
	// <reason>".
	Degraded() string
}

// Mounter adds handlers to the server's mux.
type Mounter interface {
	Mount(mux *http.ServeMux)
}

// Front is a Mounter that answers some requests before the server's mux (the
// embedded registry's reads of a version): Answer answers them as the handlers it
// mounted would through the mux, and reports true, or leaves the request alone. It
// sees GET and HEAD requests only, after the server's limits and with nosniff set.
type Front interface {
	Mounter
	Answer(w http.ResponseWriter, r *http.Request) bool
}

// MountFunc is a Mounter that is a function.
type MountFunc func(mux *http.ServeMux)

// Mount calls f.
func (f MountFunc) Mount(mux *http.ServeMux) { f(mux) }

// Server is `contractbot serve`: POST /webhook, /healthz, /readyz, /metrics and what
// Mount adds. Every response carries X-Content-Type-Options: nosniff.
type Server struct {
	cfg     Config
	handler http.Handler
	queue   *Queue
	ready   atomic.Bool
	reg     *prometheus.Registry
	cancel  context.CancelFunc
}

// New builds the server; its queue's workers start at once.
func New(cfg Config) *Server {
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	s := &Server{cfg: cfg, reg: prometheus.NewRegistry()}
	s.reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	var workCtx context.Context
	workCtx, s.cancel = context.WithCancel(context.Background())
	s.queue = NewQueue(workCtx, QueueConfig{Workers: cfg.Workers, MaxPending: cfg.QueueSize,
		Attempts: cfg.Attempts, Backoff: cfg.Backoff, Metrics: s.reg, Log: cfg.Log})
	mux := http.NewServeMux()
	if cfg.Route != nil {
		mux.Handle("POST /webhook", &Webhook{Secret: cfg.WebhookSecret, MaxBody: cfg.MaxBody, Route: cfg.Route,
			Queue: s.queue, Metrics: NewWebhookMetrics(s.reg), Log: cfg.Log})
	}
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte("ok\n")) })
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, _ *http.Request) {
		if !s.ready.Load() {
			http.Error(w, "not ready", http.StatusServiceUnavailable)
			return
		}
		if cfg.Readiness != nil {
			if reason := cfg.Readiness.NotReady(); reason != "" {
				http.Error(w, "not ready: "+reason, http.StatusServiceUnavailable)
				return
			}
		}
		// Degraded is still ready: the last good commit is served (a replica taken out
		// of the load balancer would serve nothing); the reason is in the body and
		// the contractbot_registry_degraded metric alerts.
		if cfg.Readiness != nil {
			if reason := cfg.Readiness.Degraded(); reason != "" {
				w.Write([]byte("degraded: " + reason + "\n"))
				return
			}
		}
		w.Write([]byte("ready\n"))
	})
	if !cfg.SeparateMetrics {
		mux.Handle("GET /metrics", s.MetricsHandler())
	}
	var fronts []Front
	for _, m := range cfg.Mounts {
		m.Mount(mux)
		if f, ok := m.(Front); ok {
			fronts = append(fronts, f)
		}
	}
	var h http.Handler = mux
	if len(fronts) > 0 {
		h = &fronted{fronts: fronts, mux: mux}
	}
	s.handler = NoSniff(limitPerClient(h, cmp.Or(cfg.BodiesPerClient, DefaultBodiesPerClient)))
	return s
}

// fronted offers GET and HEAD requests to the Fronts before the mux.
type fronted struct {
	fronts []Front
	mux    http.Handler
}

func (f *fronted) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodGet || r.Method == http.MethodHead {
		for _, front := range f.fronts {
			if front.Answer(w, r) {
				return
			}
		}
	}
	f.mux.ServeHTTP(w, r)
}

// NoSniff sets X-Content-Type-Options: nosniff on every response of h, so a browser
// never runs a response as something other than its declared type.
func NoSniff(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header()["X-Content-Type-Options"] = nosniff // the canonical key: no Set on the hot path
		h.ServeHTTP(w, r)
	})
}

// nosniff is shared by every response: a handler that adds a value gets a new slice.
var nosniff = []string{"nosniff"}

// MetricsHandler serves the Prometheus metrics (with nosniff).
func (s *Server) MetricsHandler() http.Handler {
	return NoSniff(promhttp.HandlerFor(s.reg, promhttp.HandlerOpts{}))
}

// Metrics is the server's metrics registry, for the bot's own metrics.
func (s *Server) Metrics() prometheus.Registerer { return s.reg }

// Queue is the server's work queue.
func (s *Server) Queue() *Queue { return s.queue }

// ServeHTTP serves the mux (for tests with httptest).
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.handler.ServeHTTP(w, r) }

// NewHTTPServer is the net/http server for h with every limit set on purpose (header
// size, read, write and idle times) and nosniff on every response; every listener of
// contractbot uses it.
func NewHTTPServer(h http.Handler) *http.Server { return newHTTPServer(NoSniff(h)) }

// newHTTPServer is NewHTTPServer for a handler that sets nosniff itself.
func newHTTPServer(h http.Handler) *http.Server {
	return &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second,
		WriteTimeout: 30 * time.Second, IdleTimeout: 2 * time.Minute, MaxHeaderBytes: MaxHeaderBytes}
}

// Serve accepts connections on l until ctx ends, then stops taking webhooks, lets the
// queued evaluations finish (up to grace) and returns.
func (s *Server) Serve(ctx context.Context, l net.Listener, grace time.Duration) error {
	srv := newHTTPServer(s.handler) // nosniff is set in it
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(netutil.LimitListener(l, cmp.Or(s.cfg.MaxConns, DefaultMaxConns))) }()
	s.ready.Store(true)
	s.cfg.Log.Info("serving", "addr", l.Addr().String())
	select {
	case err := <-errc:
		s.cancel()
		return err
	case <-ctx.Done():
	}
	s.ready.Store(false)
	shutdown, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	err := srv.Shutdown(shutdown)
	done := make(chan struct{})
	go func() { s.queue.Drain(); close(done) }()
	select {
	case <-done:
	case <-shutdown.Done():
		s.cfg.Log.Warn("evaluations still running at shutdown; the reconcile loop of a replica repairs them")
	}
	s.cancel()
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
}

// metricsConns bounds the connections of the --metrics-addr listener: a scraper or two.
const metricsConns = 64

// ServeMetrics serves /metrics alone on l until ctx ends (for --metrics-addr).
func (s *Server) ServeMetrics(ctx context.Context, l net.Listener) error {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", s.MetricsHandler())
	srv := NewHTTPServer(mux)
	l = netutil.LimitListener(l, metricsConns)
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx) // the metrics listener only: nothing waits on it
	}()
	s.cfg.Log.Info("serving metrics", "addr", l.Addr().String())
	if err := srv.Serve(l); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
