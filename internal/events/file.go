package events

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/contractbot/contractbot/internal/appendfile"
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
// The file only ever holds whole lines (internal/appendfile): an append that fails (a
// full disk) is cut back off before the next, and a torn last line that a crash left
// is cut off when the file is opened (that event was never acknowledged: the next run
// sends it again).
type File struct {
	mu   sync.Mutex
	path string
	f    *appendfile.File
}

// OpenFile opens (or creates) the JSON-lines file at path for appending, creating its
// folder when needed.
func OpenFile(path string) (*File, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("create the folder of event file %s: %w", path, err)
	}
	f, _, err := appendfile.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open event file: %w", err)
	}
	return &File{path: path, f: f}, nil
}

// Send appends e as one line and syncs the file; it returns nil only once the line
// is durable, and leaves nothing of it in the file otherwise.
func (s *File) Send(_ context.Context, e Event) error {
	b, err := Marshal(e)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.f.Append(append(b, '\n')); err != nil {
		return fmt.Errorf("append event %s to %s: %w", e.ID, s.path, err)
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
