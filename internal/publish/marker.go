package publish

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sync"

	"github.com/contractbot/contractbot/internal/atomicfile"
)

// FileMarker keeps the published commits in a JSON file: {"commits": {sha: summary}}.
// It is the CLI's marker; the file is replaced atomically (written aside, synced,
// renamed), so a crash leaves the old or the new state, never a torn one.
type FileMarker struct {
	mu    sync.Mutex
	path  string
	state fileState
}

type fileState struct {
	Commits map[string]Summary `json:"commits"`
}

// OpenFileMarker reads the state file at path; a missing file is an empty state.
func OpenFileMarker(path string) (*FileMarker, error) {
	m := &FileMarker{path: path, state: fileState{Commits: map[string]Summary{}}}
	b, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return m, nil
	case err != nil:
		return nil, fmt.Errorf("read publish state: %w", err)
	}
	if err := json.Unmarshal(b, &m.state); err != nil {
		return nil, fmt.Errorf("read publish state %s: %w; move it aside to publish the whole history again (versions already registered are found, not duplicated)", path, err)
	}
	if m.state.Commits == nil {
		m.state.Commits = map[string]Summary{}
	}
	return m, nil
}

// Done reports whether commit is marked.
func (m *FileMarker) Done(_ context.Context, commit string) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	_, ok := m.state.Commits[commit]
	return ok, nil
}

// Mark records commit and writes the file.
func (m *FileMarker) Mark(_ context.Context, commit string, s Summary) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.state.Commits[commit] = s
	b, err := json.MarshalIndent(m.state, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.Write(m.path, append(b, '\n')); err != nil {
		delete(m.state.Commits, commit)
		return fmt.Errorf("write publish state: %w", err)
	}
	return nil
}

// Summary returns what was recorded for commit.
func (m *FileMarker) Summary(commit string) (Summary, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.state.Commits[commit]
	return s, ok
}
