package registry

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/contractbot/contractbot/checker"
	"github.com/contractbot/contractbot/internal/versions"
)

// compatibility answers POST /compatibility/subjects/{subject}/versions[/{version}]
// with contractbot's checkers at the subject's level. Against "latest" or no version
// the level decides which versions count (all of them for _TRANSITIVE levels, the
// latest otherwise); against a numbered version, that version alone.
func (s *Server) compatibility(w http.ResponseWriter, r *http.Request) {
	_, se := s.subject(w, r)
	if se == nil {
		return
	}
	prev := se.versions
	if r.PathValue("version") != "" {
		ve := s.version(w, r)
		if ve == nil {
			return
		}
		if r.PathValue("version") != "latest" && r.PathValue("version") != "-1" {
			prev = []*versionEntry{ve}
		}
	}
	req, ok := readRequest(w, r)
	if !ok {
		return
	}
	level, err := checker.ParseLevel(se.level)
	if err != nil {
		level = checker.Backward
	}
	typ, ok := requestType(w, req)
	if !ok {
		return
	}
	if len(prev) > 0 && prev[len(prev)-1].typ != typ {
		writeError(w, http.StatusUnprocessableEntity, CodeInvalidSchema, fmt.Sprintf("Subject '%s' holds %s schemas; the request's schemaType is %s.", se.name, prev[len(prev)-1].typ, typ))
		return
	}
	eng, ok := EngineOf(typ)
	if !ok {
		writeError(w, http.StatusUnprocessableEntity, CodeInvalidSchema, fmt.Sprintf("Schema type %s is not served here; use %s.", typ, typeNames()))
		return
	}
	res, err := s.check(eng, se, prev, req, level)
	if err != nil {
		var ie *checker.InputError
		if errors.As(err, &ie) {
			writeError(w, http.StatusUnprocessableEntity, CodeInvalidSchema, "Invalid schema: "+err.Error())
			return
		}
		writeError(w, http.StatusInternalServerError, CodeInternal, "The compatibility check failed: "+err.Error())
		return
	}
	out := Compatibility{IsCompatible: res.Compatible}
	for _, f := range res.Findings {
		msg := f.Rule
		if f.Path != "" {
			msg += " at " + f.Path
		}
		if f.Against > 0 && f.Against <= len(prev) {
			msg += " (against version " + strconv.Itoa(prev[f.Against-1].v.Version) + ")"
		}
		out.Messages = append(out.Messages, msg+": "+f.Message)
	}
	if out.Messages == nil {
		out.Messages = []string{}
	}
	write(w, mustJSON(out))
}

// check parses earlier versions with the files they import read at the commit where
// each appeared, and the request's schema with its references (import path -> the
// referenced subject version's text), then the repository's head; then runs the
// format's engine at level.
func (s *Server) check(eng checker.Engine, se *subjectEntry, prev []*versionEntry, req schemaRequest, level checker.Level) (*checker.Result, error) {
	snap := s.snap.Load()
	old := make([]checker.Version, 0, len(prev))
	for _, ve := range prev {
		commit := ve.v.Commit
		sc, err := eng.Parse(checker.ParseInput{
			Input: checker.Input{Path: fmt.Sprintf("%s version %d", ve.v.Subject, ve.v.Version), Data: ve.text()},
			Name:  ve.importPath,
			Resolve: func(name string) ([]byte, error) {
				return s.readAt(commit, versions.ContractsDir+"/"+name)
			},
		})
		if err != nil {
			// Not wrapped: a stored version that does not parse is the server's
			// problem (500), not an invalid request (the *checker.InputError inside).
			return nil, fmt.Errorf("parse %s version %d from Git: %s", ve.v.Subject, ve.v.Version, err.Error())
		}
		old = append(old, checker.Version{Schema: sc})
	}
	self := "request" + eng.Describe().Extensions[0]
	if n := len(se.versions); n > 0 {
		self = se.versions[n-1].importPath
	}
	files := snap.referencedFiles(req.References)
	head := snap.head
	if fdp, ok := fromSerialized(req.Schema); ok && eng.Describe().RegistryType == string(Protobuf) {
		if _, textOK := canonical(Protobuf, []byte(req.Schema)); !textOK {
			next, err := s.requestDescriptor(fdp, files, head)
			if err != nil {
				return nil, err
			}
			return eng.Check(old, next, level, ""), nil
		}
	}
	next, err := eng.Parse(checker.ParseInput{
		Input: checker.Input{Path: "request", Data: []byte(req.Schema)},
		Name:  self,
		Resolve: func(name string) ([]byte, error) {
			if data, ok := files[name]; ok {
				return data, nil
			}
			return s.readAt(head, versions.ContractsDir+"/"+name)
		},
	})
	if err != nil {
		return nil, err
	}
	return eng.Check(old, next, level, ""), nil
}

// typeNames lists the served schema types for a message: "AVRO or PROTOBUF".
func typeNames() string {
	var names []string
	for _, t := range servedTypes() {
		names = append(names, string(t))
	}
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}
