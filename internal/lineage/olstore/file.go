package olstore

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/contractbot/contractbot/internal/appendfile"
	"github.com/contractbot/contractbot/internal/lineage/openlineage"
)

// load reads the events file into s. A line that is not a valid event is logged with
// file:line and skipped; a last line without its newline that does not parse is what a
// crash (or a full disk) in the middle of an append leaves: it is dropped with a
// warning, and the file is cut back to the last complete line before the next append,
// so that event is not glued onto it. An event already held (same run, type, time and
// job) is kept once.
func (s *Store) load(f io.Reader, log *slog.Logger) error {
	br := bufio.NewReaderSize(f, 64<<10)
	var off int64 // where the current line starts
	skipped, dups := 0, 0
	defer func() {
		if skipped+dups > 0 {
			log.Info(fmt.Sprintf("%s: %d events loaded; %d lines that are not events skipped, %d repeated events kept once.", s.path, len(s.events), skipped, dups))
		}
	}()
	for n := 1; ; n++ {
		line, size, complete, err := openlineage.ReadLine(br, openlineage.MaxLine)
		if err != nil && !errors.Is(err, io.EOF) {
			return fmt.Errorf("read the lineage events file %s: %w", s.path, err)
		}
		if size == 0 {
			return nil
		}
		start := off
		off += size
		s.fileBytes = off
		trimmed := bytes.TrimSpace(line)
		if line != nil && len(trimmed) == 0 {
			continue
		}
		e, perr := parseLine(trimmed)
		switch {
		case perr != nil && !complete:
			log.Warn(fmt.Sprintf("%s:%d: the last line is cut short (%d bytes without a newline: serve stopped, or the disk filled, in the middle of keeping an event); it is dropped, and the file is cut back to line %d before the next event is kept.", s.path, n, size, n-1), "err", perr)
			s.fileBytes = start // cut off before the next append
			return nil
		case perr != nil:
			log.Warn(fmt.Sprintf("%s:%d: the line is not an OpenLineage run event and is skipped; remove it, or start serve with a fresh --lineage-events file.", s.path, n), "err", perr)
			skipped++
			continue
		}
		if !complete {
			s.newline = true // the next append starts on a line of its own
		}
		if s.check(e) == kept {
			// the budgets hold after a restart too: a job over its budget keeps its
			// latest runs, and the file is compacted once most of it is let go
			jk, run := s.runOf(e)
			if full := s.makeRoom(jk, run, len(trimmed)); full != "" {
				log.Warn(fmt.Sprintf("%s:%d: the event is not held: %s", s.path, n, full))
				skipped++
				continue
			}
		}
		if s.keep(e, bytes.Clone(trimmed)) == duplicate {
			dups++
		}
	}
}

// parseLine reads one stored event; nil line means it was longer than MaxLine.
func parseLine(line []byte) (openlineage.RunEvent, error) {
	if line == nil {
		return openlineage.RunEvent{}, fmt.Errorf("the line is longer than %d bytes", openlineage.MaxLine)
	}
	return openlineage.Parse(line)
}

// appendLine keeps one event at the end of the file, synced, or nothing of it: a
// torn last line (a crash or a full disk in the middle of an append) is cut off
// before, and a failed append cut back off (internal/appendfile).
func (s *Store) appendLine(line []byte) error {
	if s.newline { // the file's last event lacks its newline: give it one first
		if err := appendNewline(s.path); err != nil {
			return fmt.Errorf("keep a lineage event: %w", err)
		}
		s.newline = false
	}
	f, _, err := appendfile.Open(s.path)
	if err != nil {
		return fmt.Errorf("keep a lineage event: %w", err)
	}
	err = f.Append(append(line[:len(line):len(line)], '\n'))
	s.fileBytes = f.Size()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("keep a lineage event: %w", err)
	}
	return nil
}

// appendNewline ends the file's last line.
func appendNewline(path string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return err
	}
	_, err = f.Write([]byte{'\n'})
	return errors.Join(err, f.Sync(), f.Close())
}

// wasteful reports whether most of the file is events no longer held (superseded
// runs, repeats, bad lines).
func (s *Store) wasteful() bool {
	return s.path != "" && s.fileBytes > 2*int64(s.bytes)+1<<20
}

// compact rewrites the file with the events held only, through a temporary file
// renamed over it.
func (s *Store) compact() error {
	tmp := s.path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return fmt.Errorf("compact the lineage events file: %w", err)
	}
	w := bufio.NewWriter(f)
	var n int64
	for _, ev := range s.events {
		_, _ = w.Write(ev.line)
		_ = w.WriteByte('\n')
		n += int64(len(ev.line)) + 1
	}
	err = errors.Join(w.Flush(), f.Sync(), f.Close())
	if err == nil {
		err = os.Rename(tmp, s.path)
	}
	if err != nil {
		_ = os.Remove(tmp) // the old file stays as it was
		return fmt.Errorf("compact the lineage events file: %w", err)
	}
	s.fileBytes, s.newline = n, false
	return nil
}
