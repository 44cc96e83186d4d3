// Package olstore keeps the OpenLineage run events that serve receives at
// POST /api/v1/lineage (the path OpenLineage's HTTP transport posts to): in memory, and
// appended to a JSON-lines file when one is given, so that a restart keeps them.
// GET on the same path returns them as JSON lines, which lineage verify --url reads.
package olstore

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"sync"

	"github.com/contractbot/contractbot/internal/lineage/openlineage"
)

// Path is where OpenLineage's HTTP transport posts events.
const Path = "/api/v1/lineage"

// MaxBody bounds one posted event; MaxEvents the events held (beyond, 503).
const (
	MaxBody   = openlineage.MaxLine
	MaxEvents = 100_000
)

// Store holds the events received.
type Store struct {
	mu     sync.Mutex
	path   string
	events []event
	seen   map[key]bool
	// cut is where a torn last line of the file starts (-1: none); newline says the
	// file's last line lacks its newline but is an event.
	cut     int64
	newline bool
	// observed is what the first observedN events say, kept for Observed.
	observed  []*openlineage.Observed
	observedN int
}

// event is one event held: its compact JSON and what identifies it.
type event struct {
	line []byte
	key  key
}

// key identifies an event: OpenLineage clients retry, so the same event can arrive twice.
type key struct{ runID, eventType, eventTime, namespace, job string }

func keyOf(e openlineage.RunEvent) key {
	return key{e.Run.RunID, e.EventType, e.EventTime, e.Job.Namespace, e.Job.Name}
}

// Open returns a store that persists to path ("" keeps events in memory only),
// loading the events already there. Lines of the file that are not events are logged
// and skipped (see load): a damaged file never stops serve.
func Open(path string, log *slog.Logger) (*Store, error) {
	s := &Store{path: path, seen: map[key]bool{}, cut: -1}
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
	return s, nil
}

// keep holds an event unless the same one is held; false when it was.
func (s *Store) keep(e openlineage.RunEvent, line []byte) bool {
	k := keyOf(e)
	if s.seen[k] {
		return false
	}
	s.seen[k] = true
	s.events = append(s.events, event{line, k})
	return true
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
	if s.observedN != len(s.events) || s.observed == nil {
		evs := make([]openlineage.RunEvent, 0, len(s.events))
		for _, held := range s.events {
			var e openlineage.RunEvent
			if json.Unmarshal(held.line, &e) == nil && e.Job != nil { // each was validated when kept
				evs = append(evs, e)
			}
		}
		s.observed, s.observedN = openlineage.Observe(evs), len(s.events)
	}
	return len(s.events), len(s.events), s.observed
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
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBody))
	if err != nil {
		http.Error(w, fmt.Sprintf("the event could not be read (at most %d bytes): %v", MaxBody, err), http.StatusBadRequest)
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
	if len(s.events) >= MaxEvents {
		http.Error(w, fmt.Sprintf("the store holds %d events, its limit; start serve with a fresh --lineage-events file", MaxEvents), http.StatusServiceUnavailable)
		return
	}
	if s.path != "" {
		if err := s.appendLine(compact.Bytes()); err != nil {
			http.Error(w, "the event could not be kept; send it again", http.StatusInternalServerError)
			return
		}
	}
	s.keep(e, compact.Bytes())
	w.WriteHeader(http.StatusCreated)
}
