package checker

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
)

// Canonicalizer is implemented by engines whose format has a canonical text: the
// schema printed from its parsed form, as the Confluent Schema Registry stores it, so
// that two texts that differ only in layout (white space, comments, key order where
// the format ignores it) are one schema. Registries identify a schema by this text;
// the versions index, the embedded registry, publish and `registry diff` do the same
// through Canonical.
//
// An engine without it gets the default of Canonical: its text as compacted JSON,
// which is Confluent's canonical form of a JSON Schema.
type Canonicalizer interface {
	// Canonical returns the canonical text of one schema file's text. It reads only
	// text (imports are not resolved); unusable text is an error.
	Canonical(text []byte) ([]byte, error)
}

// Canonical returns the canonical text of a schema text of engine e's format: e's
// Canonicalizer when it has one; otherwise the text as compacted JSON when it is JSON,
// else the text with its line endings made LF and its trailing white space dropped.
// A nil engine takes the default. The error is e's: the text does not parse.
func Canonical(e Engine, text []byte) ([]byte, error) {
	if c, ok := e.(Canonicalizer); ok && e != nil {
		return c.Canonical(text)
	}
	return DefaultCanonical(text), nil
}

// DefaultCanonical is Canonical's form for an engine without a Canonicalizer: compacted
// JSON when the text is JSON, else the text with LF line endings and no trailing
// white space on any line or at either end.
func DefaultCanonical(text []byte) []byte {
	var buf bytes.Buffer
	if json.Valid(text) && json.Compact(&buf, text) == nil {
		return buf.Bytes()
	}
	s := strings.ReplaceAll(string(text), "\r\n", "\n")
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t\r")
	}
	return []byte(strings.TrimSpace(strings.Join(lines, "\n")))
}

// CanonicalKey is a short stable key of a canonical text (hex SHA-256), for indexes
// that compare many of them.
func CanonicalKey(canonical []byte) string {
	sum := sha256.Sum256(canonical)
	return hex.EncodeToString(sum[:])
}
