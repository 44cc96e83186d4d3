package olstore

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"

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
			s.cut = start
			return nil
		case perr != nil:
			log.Warn(fmt.Sprintf("%s:%d: the line is not an OpenLineage run event and is skipped; remove it, or start serve with a fresh --lineage-events file.", s.path, n), "err", perr)
			skipped++
			continue
		}
		if !complete {
			s.newline = true // the next append starts on a line of its own
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

// appendLine keeps one event at the end of the file, first cutting off a torn last
// line found when the file was opened.
func (s *Store) appendLine(line []byte) error {
	f, err := os.OpenFile(s.path, os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("keep a lineage event: %w", err)
	}
	if s.cut >= 0 {
		if err := f.Truncate(s.cut); err != nil {
			_ = f.Close() // the truncation's error is the one to report
			return fmt.Errorf("cut the torn last line off the lineage events file: %w", err)
		}
	}
	buf := make([]byte, 0, len(line)+2)
	if s.newline {
		buf = append(buf, '\n')
	}
	buf = append(append(buf, line...), '\n')
	if _, err := f.Seek(0, io.SeekEnd); err != nil {
		_ = f.Close() // the seek's error is the one to report
		return fmt.Errorf("keep a lineage event: %w", err)
	}
	if _, err := f.Write(buf); err != nil {
		_ = f.Close() // the write's error is the one to report
		return fmt.Errorf("keep a lineage event: %w", err)
	}
	if err := f.Sync(); err != nil {
		_ = f.Close() // the sync's error is the one to report
		return fmt.Errorf("keep a lineage event: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("keep a lineage event: %w", err)
	}
	if s.cut >= 0 {
		s.fileBytes = s.cut
	}
	s.fileBytes += int64(len(buf))
	s.cut, s.newline = -1, false
	return nil
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
	s.fileBytes, s.cut, s.newline = n, -1, false
	return nil
}
