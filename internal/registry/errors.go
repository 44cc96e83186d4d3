package registry

import (
	"errors"
	"fmt"
	"net/http"
)

// Error codes of the Confluent Schema Registry REST API that this package produces or
// branches on.
const (
	CodeSubjectNotFound      = 40401
	CodeVersionNotFound      = 40402
	CodeSchemaNotFound       = 40403
	CodeSubjectLevelNotFound = 40408
	CodeIncompatible         = 409
	CodeInvalidSchema        = 42201
	CodeInvalidVersion       = 42202
	CodeInvalidLevel         = 42203
	CodeNotPermitted         = 42205
	CodeInternal             = 50001
	// CodeNotReady answers every request while the embedded registry builds its first
	// index (HTTP 503). Confluent has no code for it; this one follows its rule (the
	// HTTP status, then a number).
	CodeNotReady = 50301
)

// Error is an error answered by a registry: the HTTP status and the body
// {"error_code": ..., "message": ...}. Callers branch on it with errors.As or the Is*
// helpers.
type Error struct {
	StatusCode int    `json:"-"`
	Code       int    `json:"error_code"`
	Message    string `json:"message"`
}

func (e *Error) Error() string {
	if e.Message == "" {
		return fmt.Sprintf("registry: HTTP %d (error code %d)", e.StatusCode, e.Code)
	}
	return fmt.Sprintf("registry: %s (HTTP %d, error code %d)", e.Message, e.StatusCode, e.Code)
}

// Temporary reports whether the request may succeed when retried: a 5xx status.
func (e *Error) Temporary() bool { return e.StatusCode >= 500 }

func asError(err error) (*Error, bool) {
	var e *Error
	ok := errors.As(err, &e)
	return e, ok
}

// IsNotFound reports whether err says that a subject, version or schema does not
// exist (HTTP 404).
func IsNotFound(err error) bool {
	e, ok := asError(err)
	return ok && e.StatusCode == http.StatusNotFound
}

// IsSubjectNotFound reports error code 40401.
func IsSubjectNotFound(err error) bool { return hasCode(err, CodeSubjectNotFound) }

// IsVersionNotFound reports error code 40402.
func IsVersionNotFound(err error) bool { return hasCode(err, CodeVersionNotFound) }

// IsSchemaNotFound reports error code 40403.
func IsSchemaNotFound(err error) bool { return hasCode(err, CodeSchemaNotFound) }

// IsIncompatible reports whether the registry refused a schema as incompatible with
// the subject's earlier versions (HTTP 409).
func IsIncompatible(err error) bool {
	e, ok := asError(err)
	return ok && e.StatusCode == http.StatusConflict
}

// IsInvalidSchema reports error code 42201 (the registry could not parse the schema).
func IsInvalidSchema(err error) bool { return hasCode(err, CodeInvalidSchema) }

// IsNotPermitted reports error code 42205: the registry (or subject) is read-only, as
// the embedded registry always is.
func IsNotPermitted(err error) bool { return hasCode(err, CodeNotPermitted) }

// IsUnauthorized reports HTTP 401 or 403.
func IsUnauthorized(err error) bool {
	e, ok := asError(err)
	return ok && (e.StatusCode == http.StatusUnauthorized || e.StatusCode == http.StatusForbidden)
}

func hasCode(err error, code int) bool {
	e, ok := asError(err)
	return ok && e.Code == code
}
