package flinksql

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/contractbot/contractbot/checker/located"
)

// tokKind is the kind of a token.
type tokKind int

const (
	tEOF    tokKind = iota
	tIdent          // a word: keyword or unquoted identifier
	tQuoted         // a `back-quoted` or "double-quoted" identifier
	tString         // a 'string' literal (also X'..', N'..', E'..'), value unescaped
	tNumber         // 12, 1.5, 1e3
	tPunct          // operators and punctuation: ( ) , ; . [ ] = <> <= >= != || => :: and single characters
)

// token is one lexical token with its position (1-based line and column, byte offset).
type token struct {
	kind tokKind
	text string // identifier text (as written), unescaped string, or operator
	line int
	col  int
	off  int
}

// is reports whether t is the keyword kw (case-insensitive, unquoted words only).
func (t token) is(kw string) bool { return t.kind == tIdent && strings.EqualFold(t.text, kw) }

// isP reports whether t is the punctuation p.
func (t token) isP(p string) bool { return t.kind == tPunct && t.text == p }

func (t token) String() string {
	switch t.kind {
	case tEOF:
		return "end of input"
	case tString:
		return fmt.Sprintf("string '%s'", clip(t.text))
	case tQuoted:
		return fmt.Sprintf("identifier `%s`", clip(t.text))
	default:
		return fmt.Sprintf("%q", clip(t.text))
	}
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}

// Error is a located parse error.
type Error struct {
	located.Span
	Message string `json:"message"`
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Column, e.Message)
}

// lex splits src into tokens. Comments (-- to end of line, /* */, including hints
// /*+ ... */) are dropped. Characters that no rule knows become one-character punct
// tokens, so that statements the parser skips (SET, ADD JAR, ...) never fail here.
func lex(file, src string) ([]token, *Error) {
	toks := make([]token, 0, len(src)/4)
	line, lineStart := 1, 0
	i := 0
	// Columns are counted in runes from the last token of the same line, so a long
	// line costs linear time.
	colLine, colOff, colRunes := -1, 0, 0
	errAt := func(off int, format string, args ...any) *Error {
		l, c := position(src, off)
		return &Error{Span: located.Span{File: file, Line: l, Column: c}, Message: fmt.Sprintf(format, args...)}
	}
	// quoted reads the text whose opening quote q is at src[i], unescaped, and moves
	// i past its closing quote: a doubled quote stands for one, and with backslash a
	// backslash escapes the next byte. It reports false when the text is never closed.
	quoted := func(q byte, backslash bool) (string, bool) {
		var b strings.Builder
		for i++; i < len(src); i++ {
			switch {
			case backslash && src[i] == '\\' && i+1 < len(src):
				i++ // the escaped byte is written as it is
			case src[i] == q && i+1 < len(src) && src[i+1] == q:
				i++
			case src[i] == q:
				i++
				return b.String(), true
			case src[i] == '\n':
				line, lineStart = line+1, i+1
			}
			b.WriteByte(src[i])
		}
		return "", false
	}
	for i < len(src) {
		c := src[i]
		switch {
		case c == '\n':
			i++
			line, lineStart = line+1, i
			continue
		case c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v':
			i++
			continue
		case c == '-' && i+1 < len(src) && src[i+1] == '-':
			for i < len(src) && src[i] != '\n' {
				i++
			}
			continue
		case c == '/' && i+1 < len(src) && src[i+1] == '*':
			end := strings.Index(src[i+2:], "*/")
			if end < 0 {
				return nil, errAt(i, "a /* comment is never closed; end it with */")
			}
			seg := src[i : i+2+end+2]
			if n := strings.Count(seg, "\n"); n > 0 {
				line += n
				lineStart = i + strings.LastIndexByte(seg, '\n') + 1
			}
			i += len(seg)
			continue
		}
		if colLine != lineStart {
			colLine, colOff, colRunes = lineStart, lineStart, 0
		}
		colRunes += utf8.RuneCountInString(src[colOff:i])
		colOff = i
		tok := token{line: line, col: colRunes + 1, off: i}
		switch {
		case (c == 'U' || c == 'u') && strings.HasPrefix(src[i+1:], "&'"):
			// a Unicode string U&'\0001': keep the escapes as written
			end := strings.IndexByte(src[i+3:], '\'')
			if end < 0 {
				return nil, errAt(i, "a string literal is never closed; end it with '")
			}
			tok.kind, tok.text = tString, src[i+3:i+3+end]
			i += 3 + end + 1
		case c == '\'' || ((c == 'X' || c == 'x' || c == 'N' || c == 'n' || c == 'E' || c == 'e') && i+1 < len(src) && src[i+1] == '\''):
			start := i
			if c != '\'' {
				i++
			}
			// a prefix (X, N, E) lets a backslash escape the next character
			text, ok := quoted('\'', c != '\'')
			if !ok {
				return nil, errAt(start, "a string literal is never closed; end it with '")
			}
			tok.kind, tok.text = tString, text
		case c == '$' && i+1 < len(src) && src[i+1] == '{':
			// a template placeholder (${bizdate}): a literal
			end := strings.IndexByte(src[i:], '}')
			if end < 0 || strings.IndexByte(src[i:i+end], '\n') >= 0 {
				return nil, errAt(i, "a ${ placeholder is never closed; end it with }")
			}
			tok.kind, tok.text = tString, src[i:i+end+1]
			i += end + 1
		case c == '`' || c == '"':
			start := i
			text, ok := quoted(c, false)
			if !ok {
				return nil, errAt(start, "a quoted identifier is never closed; end it with %c", c)
			}
			tok.kind, tok.text = tQuoted, text
		case c >= '0' && c <= '9' || (c == '.' && i+1 < len(src) && src[i+1] >= '0' && src[i+1] <= '9'):
			start := i
			for i < len(src) && (isDigit(src[i]) || src[i] == '.') {
				i++
			}
			if i < len(src) && (src[i] == 'e' || src[i] == 'E') {
				j := i + 1
				if j < len(src) && (src[j] == '+' || src[j] == '-') {
					j++
				}
				if j < len(src) && isDigit(src[j]) {
					i = j
					for i < len(src) && isDigit(src[i]) {
						i++
					}
				}
			}
			tok.kind, tok.text = tNumber, src[start:i]
		case isIdentStart(src, i):
			start := i
			for i < len(src) {
				r, n := utf8.DecodeRuneInString(src[i:])
				if r == '_' || r == '$' || unicode.IsLetter(r) || unicode.IsDigit(r) {
					i += n
					continue
				}
				break
			}
			tok.kind, tok.text = tIdent, src[start:i]
		default:
			tok.kind = tPunct
			if i+1 < len(src) {
				two := src[i : i+2]
				switch two {
				case "<>", "<=", ">=", "!=", "||", "=>", "::", "==":
					tok.text = two
					i += 2
					toks = append(toks, tok)
					continue
				}
			}
			_, n := utf8.DecodeRuneInString(src[i:])
			tok.text = src[i : i+n]
			i += n
		}
		toks = append(toks, tok)
	}
	l, c := position(src, len(src))
	toks = append(toks, token{kind: tEOF, line: l, col: c, off: len(src)})
	return toks, nil
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isIdentStart(src string, i int) bool {
	r, _ := utf8.DecodeRuneInString(src[i:])
	return r == '_' || unicode.IsLetter(r)
}

// position returns the 1-based line and column (in runes) of byte offset off.
func position(src string, off int) (int, int) {
	if off > len(src) {
		off = len(src)
	}
	line := 1 + strings.Count(src[:off], "\n")
	start := strings.LastIndexByte(src[:off], '\n') + 1
	return line, utf8.RuneCountInString(src[start:off]) + 1
}
