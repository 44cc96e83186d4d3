package events

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
)

// Sink delivers events. Send returns once the event is durably delivered (written and
// synced, acknowledged by the endpoint, acknowledged by every in-sync Kafka replica);
// an error means it may or may not have been: the caller sends it again, with the
// same id.
type Sink interface {
	Send(ctx context.Context, e Event) error
	Close() error
}

// File appends events to a file, one JSON object per line, and syncs the file after
// each one. It is the embedded default: no service to run, and `tail -f` or `jq` read it.
type File struct {
	mu   sync.Mutex
	path string
	f    *os.File
}

// OpenFile opens (or creates) the JSON-lines file at path for appending, creating its
// folder when needed.
func OpenFile(path string) (*File, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("create the folder of event file %s: %w", path, err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open event file: %w", err)
	}
	return &File{path: path, f: f}, nil
}

// Send appends e as one line and syncs the file.
func (s *File) Send(_ context.Context, e Event) error {
	b, err := Marshal(e)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, err := s.f.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("append event %s to %s: %w", e.ID, s.path, err)
	}
	if err := s.f.Sync(); err != nil {
		return fmt.Errorf("sync %s after event %s: %w", s.path, e.ID, err)
	}
	return nil
}

// Close closes the file.
func (s *File) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.f.Close()
}

// String names the sink for messages.
func (s *File) String() string { return "file " + s.path }
