package protobuf

import (
	"bytes"
	"fmt"
	"sync/atomic"

	"github.com/contractbot/contractbot/checker"
	"github.com/contractbot/contractbot/checker/located"
)

// MaxDeclarations bounds the declarations (statements ending in ';' and bodies opened
// by '{': fields, enum values, options, messages, ...) of the files one Parse compiles,
// the checked file and its imports together. The compiler keeps about 2 KB per
// declaration with its source positions, so the byte limit alone would let an 8 MiB
// file of short declarations take gigabytes; 30,000 keep a schema under about 60 MB,
// and a check comparing two such versions under 512 MB.
const MaxDeclarations = 30_000

// MaxLineBytes bounds the length of one line of a Protobuf file. The compiler finds a
// token's column by scanning its line from the start, so a file written on one line
// costs time quadratic in its length (29,000 fields on one 517 KB line ran past two
// minutes); 16 KiB is far past any line a person writes.
const MaxLineBytes = 16 << 10

// longLine returns a located error for the first line of data longer than
// MaxLineBytes, or nil.
func longLine(display string, data []byte) error {
	line := 1
	for len(data) > 0 {
		n := bytes.IndexByte(data, '\n')
		if n < 0 {
			n = len(data)
		}
		if n > MaxLineBytes {
			return &checker.InputError{Span: located.Span{File: display, Line: line, Column: 1}, Message: fmt.Sprintf(
				"this line is %d bytes long, over the limit of %d bytes for a line of a Protobuf schema (the compiler's cost grows with the square of a line's length); break it into one declaration per line.",
				n, MaxLineBytes)}
		}
		data = data[min(n+1, len(data)):]
		line++
	}
	return nil
}

// declarationBudget counts declarations across the files of one compilation; the
// compiler reads imports from several goroutines.
type declarationBudget struct{ used atomic.Int64 }

// take refuses a line over MaxLineBytes, counts the declarations of one file and returns a located error when the total
// passes MaxDeclarations, naming the file by display.
func (b *declarationBudget) take(display string, data []byte) error {
	if err := longLine(display, data); err != nil {
		return err
	}
	n, line, col := countDeclarations(data, MaxDeclarations+1)
	total := b.used.Add(int64(n))
	if total <= MaxDeclarations {
		return nil
	}
	if n <= MaxDeclarations && line == 0 {
		line, col = 1, 1 // over only with the files read before it
	}
	return &checker.InputError{Span: located.Span{File: display, Line: line, Column: col}, Message: fmt.Sprintf(
		"the schema has more than %d declarations (fields, enum values, options, messages) in this file and its imports; the checker refuses it here, at the first one past the limit, rather than use gigabytes of memory. Split it into several subjects.",
		MaxDeclarations)}
}

// countDeclarations counts the ';' and '{' of a Protobuf text outside comments and
// string literals, and returns the 1-based line and column where the line of the
// limit-th one starts (0 when there are fewer).
func countDeclarations(data []byte, limit int) (n, line, col int) {
	ln, lineStart := 1, 0
	for i := 0; i < len(data); i++ {
		switch c := data[i]; c {
		case '\n':
			ln, lineStart = ln+1, i+1
		case '/':
			if i+1 < len(data) && data[i+1] == '/' {
				for i < len(data) && data[i] != '\n' {
					i++
				}
				i-- // the newline is counted above
			} else if i+1 < len(data) && data[i+1] == '*' {
				for i += 2; i < len(data) && !(data[i] == '*' && i+1 < len(data) && data[i+1] == '/'); i++ {
					if data[i] == '\n' {
						ln, lineStart = ln+1, i+1
					}
				}
				i++
			}
		case '"', '\'':
			for i++; i < len(data) && data[i] != c && data[i] != '\n'; i++ {
				if data[i] == '\\' {
					i++
				}
			}
		case ';', '{':
			n++
			if n == limit {
				start := lineStart // the line's first non-blank character
				for start < i && (data[start] == ' ' || data[start] == '\t') {
					start++
				}
				line, col = ln, start-lineStart+1
			}
		}
	}
	return n, line, col
}
