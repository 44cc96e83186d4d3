// Package olstore keeps the OpenLineage run events that serve receives at
// POST /api/v1/lineage (the path OpenLineage's HTTP transport posts to): in memory, and
// appended to a JSON-lines file when one is given, so that a restart keeps them.
// GET on the same path returns them as JSON lines, which lineage verify --url reads.
package olstore

import (
	"bytes"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/contractbot/contractbot/internal/lineage/openlineage"
)

// Path is where OpenLineage's HTTP transport posts events.
const Path = "/api/v1/lineage"

// The store's budgets: MaxBody bounds one posted event (beyond, 413); MaxEvents and
// MaxBytes the events held, after older runs are superseded (beyond, 503).
const (
	MaxBody   = openlineage.MaxLine
	MaxEvents = 100_000
	MaxBytes  = 32 << 20
)

// Store holds the events received. Of each job it keeps the latest run that completed
// and the runs that began after it: a COMPLETE event supersedes the runs of its job
// that began before its run, which is what drift needs (what the job does now).
type Store struct {
	// Token, when set, is the bearer token a POST must carry (Authorization: Bearer).
	Token string

	mu     sync.Mutex
	path   string
	events []event
	bytes  int // of the events held
	seen   map[key]bool
	runs   map[runKey]int // the order in which each run began
	latest map[jobKey]int // the order of each job's latest completed run
	// gen changes whenever the events held change.
	gen int
	// fileBytes is the file's size; cut is where a torn last line of the file starts
	// (-1: none); newline says the file's last line lacks its newline but is an event.
	fileBytes int64
	cut       int64
	newline   bool
	// observed is what the events of generation observedGen say, kept for Observed.
	observed    []*openlineage.Observed
	observedGen int
}

// event is one event held: its compact JSON, what identifies it, its job and the
// order in which its run began.
type event struct {
	line []byte
	key  key
	job  jobKey
	run  int
}

// key identifies an event: OpenLineage clients retry, so the same event can arrive twice.
type key struct{ runID, eventType, eventTime, namespace, job string }

type jobKey struct{ namespace, name string }

type runKey struct {
	job jobKey
	id  string
}

func keyOf(e openlineage.RunEvent) key {
	return key{e.Run.RunID, e.EventType, e.EventTime, e.Job.Namespace, e.Job.Name}
}

// Open returns a store that persists to path ("" keeps events in memory only),
// loading the events already there. Lines of the file that are not events are logged
// and skipped (see load): a damaged file never stops serve.
func Open(path string, log *slog.Logger) (*Store, error) {
	s := &Store{path: path, seen: map[key]bool{}, runs: map[runKey]int{}, latest: map[jobKey]int{}, cut: -1, observedGen: -1}
	if path == "" {
		return s, nil
	}
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return nil, fmt.Errorf("open the lineage events file: %w", err)
	}
	defer func() { _ = f.Close() }() // read only
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if err := s.load(f, log); err != nil {
		return nil, err
	}
	if s.wasteful() {
		if err := s.compact(); err != nil {
			log.Warn("the lineage events file could not be rewritten without the superseded runs; it is read as it is", "err", err)
		}
	}
	return s, nil
}

// outcome is what keep did with an event.
type outcome int

const (
	kept outcome = iota
	duplicate
	superseded
)

// keep holds an event unless the same one is held or a later run of its job has
// completed. A COMPLETE event drops the runs of its job that began before its own.
func (s *Store) keep(e openlineage.RunEvent, line []byte) outcome {
	k := keyOf(e)
	if s.seen[k] {
		return duplicate
	}
	jk := jobKey{e.Job.Namespace, e.Job.Name}
	rk := runKey{jk, e.Run.RunID}
	run, ok := s.runs[rk]
	if !ok {
		run = len(s.runs)
		s.runs[rk] = run
	}
	if last, ok := s.latest[jk]; ok && run < last {
		return superseded
	}
	s.seen[k] = true
	s.events = append(s.events, event{line, k, jk, run})
	s.bytes += len(line)
	s.gen++
	if e.EventType == "COMPLETE" {
		if last, ok := s.latest[jk]; !ok || run > last {
			s.latest[jk] = run
			s.events = slices.DeleteFunc(s.events, func(ev event) bool {
				if ev.job != jk || ev.run >= run {
					return false
				}
				delete(s.seen, ev.key)
				s.bytes -= len(ev.line)
				return true
			})
		}
	}
	return kept
}

// Len is the number of events held.
func (s *Store) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.events)
}

// Observed returns what the events held say the jobs do, the number of events, and a
// generation that changes whenever an event is kept (the pages key their cache on it).
// It folds the events again only when new ones arrived.
func (s *Store) Observed() (generation, events int, jobs []*openlineage.Observed) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.observedGen != s.gen {
		evs := make([]openlineage.RunEvent, 0, len(s.events))
		for _, held := range s.events {
			var e openlineage.RunEvent
			if json.Unmarshal(held.line, &e) == nil && e.Job != nil { // each was validated when kept
				evs = append(evs, e)
			}
		}
		s.observed, s.observedGen = openlineage.Observe(evs), s.gen
	}
	return s.gen, len(s.events), s.observed
}

// ServeHTTP accepts one run event per POST (400 with the reason when it is not a valid
// one, and nothing kept; 200 when the same event is already held) and lists the events
// on GET.
func (s *Store) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodGet:
		w.Header().Set("Content-Type", "application/x-ndjson")
		s.mu.Lock()
		events := s.events
		s.mu.Unlock()
		for _, held := range events {
			_, _ = w.Write(append(held.line, '\n'))
		}
	case http.MethodPost:
		s.post(w, r)
	default:
		w.Header().Set("Allow", "GET, POST")
		http.Error(w, "use POST to send an OpenLineage run event, GET to list them", http.StatusMethodNotAllowed)
	}
}

func (s *Store) post(w http.ResponseWriter, r *http.Request) {
	if s.Token != "" && !bearer(r, s.Token) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="contractbot lineage"`)
		http.Error(w, "The event was not kept: this server takes OpenLineage events only with its token; set the HTTP transport's auth (type api_key) to it, which sends Authorization: Bearer <token>.", http.StatusUnauthorized)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBody))
	if err != nil {
		if errors.As(err, new(*http.MaxBytesError)) {
			http.Error(w, fmt.Sprintf("The event was not kept: it is over %d bytes, the budget of one event; leave out the facets contractbot does not read (only columnLineage is), or split the event.", MaxBody), http.StatusRequestEntityTooLarge)
			return
		}
		http.Error(w, fmt.Sprintf("the event could not be read: %v", err), http.StatusBadRequest)
		return
	}
	e, err := openlineage.Parse(body)
	if err != nil {
		http.Error(w, "The event was not kept: "+err.Error()+".", http.StatusBadRequest)
		return
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, body); err != nil {
		http.Error(w, "the body is not one JSON object: "+err.Error(), http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.seen[keyOf(e)] {
		w.WriteHeader(http.StatusOK) // a client's retry: already kept
		return
	}
	if len(s.events) >= MaxEvents || s.bytes+compact.Len() > MaxBytes {
		http.Error(w, fmt.Sprintf("The event was not kept: the store holds %d events (%d bytes), its budget being %d events and %d bytes once older runs of each job are superseded by the latest completed one; start serve with a fresh --lineage-events file.", len(s.events), s.bytes, MaxEvents, MaxBytes), http.StatusServiceUnavailable)
		return
	}
	if s.path != "" {
		if err := s.appendLine(compact.Bytes()); err != nil {
			http.Error(w, "the event could not be kept; send it again", http.StatusInternalServerError)
			return
		}
	}
	if s.keep(e, compact.Bytes()) == superseded {
		w.WriteHeader(http.StatusOK) // a later run of the job has completed
		return
	}
	if s.path != "" && s.wasteful() {
		_ = s.compact() // the events are kept either way; the next append tries again
	}
	w.WriteHeader(http.StatusCreated)
}

// bearer reports whether r carries Authorization: Bearer token (the scheme's name is
// case-insensitive, RFC 9110 section 11.1).
func bearer(r *http.Request, token string) bool {
	scheme, got, ok := strings.Cut(strings.TrimSpace(r.Header.Get("Authorization")), " ")
	return ok && strings.EqualFold(scheme, "Bearer") && subtle.ConstantTimeCompare([]byte(strings.TrimSpace(got)), []byte(token)) == 1
}
