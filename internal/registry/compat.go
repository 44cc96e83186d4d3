package registry

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/contractbot/contractbot/checker"
	"github.com/contractbot/contractbot/checker/avro"
	"github.com/contractbot/contractbot/checker/protobuf"
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
	typ := req.SchemaType
	if typ == "" {
		typ = Avro
	}
	if len(prev) > 0 && prev[len(prev)-1].typ != typ {
		writeError(w, http.StatusUnprocessableEntity, CodeInvalidSchema, fmt.Sprintf("Subject '%s' holds %s schemas; the request's schemaType is %s.", se.name, prev[len(prev)-1].typ, typ))
		return
	}
	var res *checker.Result
	switch typ {
	case Avro:
		res, err = s.checkAvro(prev, req, level)
	case Protobuf:
		res, err = s.checkProtobuf(se, prev, req, level)
	default:
		writeError(w, http.StatusUnprocessableEntity, CodeInvalidSchema, fmt.Sprintf("Schema type %s is not served here; use AVRO or PROTOBUF.", typ))
		return
	}
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

func (s *Server) checkAvro(prev []*versionEntry, req schemaRequest, level checker.Level) (*checker.Result, error) {
	old := make([]*avro.Schema, 0, len(prev))
	for _, ve := range prev {
		sc, err := avro.Parse(checker.Input{Path: fmt.Sprintf("%s version %d", ve.v.Subject, ve.v.Version), Data: ve.text})
		if err != nil {
			return nil, fmt.Errorf("parse %s version %d from Git: %v", ve.v.Subject, ve.v.Version, err)
		}
		old = append(old, sc)
	}
	next, err := avro.Parse(checker.Input{Path: "request", Data: []byte(req.Schema)})
	if err != nil {
		return nil, err
	}
	return avro.Check(old, next, level), nil
}

// checkProtobuf compiles earlier versions with their imports read at the commit where
// each appeared, and the request's schema with its references (import path -> the
// referenced subject version's text), then the repository's head.
func (s *Server) checkProtobuf(se *subjectEntry, prev []*versionEntry, req schemaRequest, level checker.Level) (*checker.Result, error) {
	snap := s.snap.Load()
	old := make([]*protobuf.Schema, 0, len(prev))
	for _, ve := range prev {
		self, text, commit := ve.importPath, ve.text, ve.v.Commit
		resolve := func(name string) ([]byte, error) {
			if name == self {
				return text, nil
			}
			return s.readAt(commit, versions.ContractsDir+"/"+name)
		}
		sc, err := protobuf.Parse(self, resolve, "")
		if err != nil {
			return nil, fmt.Errorf("compile %s version %d from Git: %v", ve.v.Subject, ve.v.Version, err)
		}
		old = append(old, sc)
	}
	self := "request.proto"
	if n := len(se.versions); n > 0 {
		self = se.versions[n-1].importPath
	}
	files := map[string][]byte{self: []byte(req.Schema)}
	for _, ref := range req.References {
		if rs := snap.subjects[ref.Subject]; rs != nil && ref.Version >= 1 && ref.Version <= len(rs.versions) {
			files[ref.Name] = rs.versions[ref.Version-1].text
		}
	}
	head := snap.head
	resolve := func(name string) ([]byte, error) {
		if data, ok := files[name]; ok {
			return data, nil
		}
		return s.readAt(head, versions.ContractsDir+"/"+name)
	}
	next, err := protobuf.Parse(self, resolve, "")
	if err != nil {
		return nil, err
	}
	return protobuf.Check(old, next, level, ""), nil
}
