package githubfake

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/google/go-github/v60/github"
)

// docsURL is the documentation_url GitHub puts in error bodies.
const docsURL = "https://docs.github.com/rest"

// errorBody is the JSON GitHub answers with when a request fails.
type errorBody struct {
	Message          string         `json:"message"`
	Errors           []github.Error `json:"errors,omitempty"`
	DocumentationURL string         `json:"documentation_url"`
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	if v != nil {
		_ = json.NewEncoder(w).Encode(v)
	}
}

func writeError(w http.ResponseWriter, status int, message string) {
	writeJSON(w, status, errorBody{Message: message, DocumentationURL: docsURL})
}

func notFound(w http.ResponseWriter) { writeError(w, http.StatusNotFound, "Not Found") }

// invalid answers 422 Validation Failed with one error about field of resource.
func invalid(w http.ResponseWriter, resource, field, code, message string) {
	writeJSON(w, http.StatusUnprocessableEntity, errorBody{
		Message:          "Validation Failed",
		Errors:           []github.Error{{Resource: resource, Field: field, Code: code, Message: message}},
		DocumentationURL: docsURL,
	})
}

// maxBody is the longest comment body or check-run summary or text GitHub
// takes, in characters.
const maxBody = 65536

// tooLong answers 422 when text is longer than limit characters.
func tooLong(w http.ResponseWriter, resource, field, text string, limit int) bool {
	if n := utf8.RuneCountInString(text); n > limit {
		invalid(w, resource, field, "custom", fmt.Sprintf("%s is too long (maximum is %d characters)", field, limit))
		return true
	}
	return false
}

// readJSON decodes the request body into v; on failure it answers 400 as
// GitHub does for unparsable JSON and returns false.
func readJSON(w http.ResponseWriter, r *http.Request, v any) bool {
	if err := json.NewDecoder(r.Body).Decode(v); err != nil {
		writeError(w, http.StatusBadRequest, "Problems parsing JSON")
		return false
	}
	return true
}

// clone deep-copies v through JSON, so callers never share state with the fake.
func clone[T any](v T) T {
	var out T
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("githubfake: clone: %v", err))
	}
	if err := json.Unmarshal(b, &out); err != nil {
		panic(fmt.Sprintf("githubfake: clone: %v", err))
	}
	return out
}

// page selects the window of n items the request asks for with per_page
// (default 30, at most 100) and page (from 1), and sets the Link header with
// rel prev, next, last and first as GitHub does.
func page(w http.ResponseWriter, r *http.Request, n int) (lo, hi int) {
	q := r.URL.Query()
	per := 30
	if v, err := strconv.Atoi(q.Get("per_page")); err == nil && v > 0 {
		per = min(v, 100)
	}
	p := 1
	if v, err := strconv.Atoi(q.Get("page")); err == nil && v > 0 {
		p = v
	}
	last := max((n+per-1)/per, 1)
	// The path as the client sent it, /api/v3 prefix included.
	linkPath := r.URL.Path
	if orig, err := url.ParseRequestURI(r.RequestURI); err == nil {
		linkPath = orig.Path
	}
	link := func(to int, rel string) string {
		u := url.URL{Scheme: "http", Host: r.Host, Path: linkPath}
		qq := r.URL.Query()
		qq.Set("page", strconv.Itoa(to))
		qq.Set("per_page", strconv.Itoa(per))
		u.RawQuery = qq.Encode()
		return fmt.Sprintf("<%s>; rel=%q", u.String(), rel)
	}
	var links []string
	if p > 1 {
		links = append(links, link(min(p-1, last), "prev"))
	}
	if p < last {
		links = append(links, link(p+1, "next"), link(last, "last"))
	}
	if p > 1 {
		links = append(links, link(1, "first"))
	}
	if len(links) > 0 {
		w.Header().Set("Link", strings.Join(links, ", "))
	}
	lo = min((p-1)*per, n)
	hi = min(lo+per, n)
	return lo, hi
}

// paginate writes the page of items the request asks for.
func paginate[T any](w http.ResponseWriter, r *http.Request, items []T) {
	lo, hi := page(w, r, len(items))
	out := items[lo:hi]
	if out == nil {
		out = []T{}
	}
	writeJSON(w, http.StatusOK, out)
}

// id allocates the next object id; callers hold s.mu.
func (s *Server) id() int64 {
	s.nextID++
	return s.nextID
}

// user is the JSON of the account login, with a stable id; callers hold s.mu.
func (s *Server) user(login string) *github.User {
	uid, ok := s.userIDs[login]
	if !ok {
		uid = int64(1000 + len(s.userIDs))
		s.userIDs[login] = uid
	}
	typ := "User"
	if strings.HasSuffix(login, "[bot]") {
		typ = "Bot"
	}
	return &github.User{
		Login:   github.String(login),
		ID:      github.Int64(uid),
		Type:    github.String(typ),
		URL:     github.String(s.ts.URL + "/users/" + login),
		HTMLURL: github.String("https://github.com/" + login),
	}
}

// pathInt parses the {name} path value as a positive integer.
func pathInt(r *http.Request, name string) (int64, bool) {
	v, err := strconv.ParseInt(r.PathValue(name), 10, 64)
	return v, err == nil && v > 0
}

// pathItem returns the index of the item whose id is the path's {id}, or
// answers 404 and returns -1.
func pathItem[T any](w http.ResponseWriter, r *http.Request, items []T, id func(T) int64) int {
	want, _ := pathInt(r, "id")
	i := slices.IndexFunc(items, func(x T) bool { return id(x) == want })
	if i < 0 {
		notFound(w)
	}
	return i
}
