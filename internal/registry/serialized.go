package registry

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net/http"
	"strings"
	"sync"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/descriptorpb"

	"github.com/contractbot/contractbot/checker/protobuf"
	"github.com/contractbot/contractbot/internal/versions"
)

// Confluent answers a Protobuf schema as a base64 FileDescriptorProto when a read asks
// ?format=serialized (its JavaScript ProtobufDeserializer always does), and takes that
// form wherever it takes a schema (confluent-kafka-python's ProtobufSerializer sends
// it to look-ups). Other formats and other schema types are answered as text.
const formatSerialized = "serialized"

// serialized reports whether a read asks for the serialized form.
func serialized(r *http.Request) bool {
	return r.URL.RawQuery != "" && r.URL.Query().Get("format") == formatSerialized
}

// descriptorForm is a Protobuf version compiled once, on the first request that needs
// it: its serialized form and its descriptor key (look-ups of serialized schemas).
type descriptorForm struct {
	once       sync.Once
	serialized string // base64 of the FileDescriptorProto's bytes
	key        string // descriptorKey of the file
	err        error
}

// descriptor compiles a Protobuf version with the files it imports read at the commit
// where it first appeared, once.
func (s *Server) descriptor(ve *versionEntry) (*descriptorForm, error) {
	if ve.typ != Protobuf || ve.pb == nil {
		return nil, fmt.Errorf("%s version %d is not a Protobuf schema", ve.v.Subject, ve.v.Version)
	}
	ve.pb.once.Do(func() {
		commit, self, text := ve.v.Commit, ve.importPath, ve.text()
		sc, err := protobuf.Parse(self, func(name string) ([]byte, error) {
			if name == self {
				return text, nil
			}
			return s.readAt(commit, versions.ContractsDir+"/"+name)
		}, "")
		if err != nil {
			ve.pb.err = fmt.Errorf("compile %s version %d: %w", ve.v.Subject, ve.v.Version, err)
			return
		}
		fdp := sc.DescriptorProto()
		dropDefaultJSONNames(fdp)
		raw, err := proto.MarshalOptions{Deterministic: true}.Marshal(fdp)
		if err != nil {
			ve.pb.err = err
			return
		}
		ve.pb.serialized = base64.StdEncoding.EncodeToString(raw)
		ve.pb.key = descriptorKey(fdp)
	})
	return ve.pb, ve.pb.err
}

// withSchema is body (a Schema's JSON whose last member, "schema", starts at at) with
// another schema text.
func withSchema(body []byte, at int, schema string) []byte {
	out := bytes.Clone(body[:at])
	out = append(out, schemaMember...)
	out = append(out, mustJSON(schema)...)
	return append(out, '}')
}

// serializedBody answers a read of ve with ?format=serialized: its body with the
// schema as a base64 FileDescriptorProto; the body itself for other types, as
// Confluent answers formats a type does not have.
func (s *Server) serializedBody(w http.ResponseWriter, ve *versionEntry, body []byte, at int) ([]byte, bool) {
	if ve.typ != Protobuf {
		return body, true
	}
	d, err := s.descriptor(ve)
	if err != nil {
		writeError(w, http.StatusInternalServerError, CodeInternal, "The schema could not be serialized: "+err.Error())
		return nil, false
	}
	return withSchema(body, at, d.serialized), true
}

// fromSerialized reads a request's schema as a base64 FileDescriptorProto; ok is false
// when it is not one.
func fromSerialized(schema string) (*descriptorpb.FileDescriptorProto, bool) {
	raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(schema))
	if err != nil || len(raw) == 0 {
		return nil, false
	}
	var fdp descriptorpb.FileDescriptorProto
	if err := proto.Unmarshal(raw, &fdp); err != nil {
		return nil, false
	}
	if len(fdp.GetMessageType()) == 0 && len(fdp.GetEnumType()) == 0 && fdp.GetName() == "" {
		return nil, false
	}
	return &fdp, true
}

// requestDescriptor links a serialized request schema: its imports read through the
// request's references (files, import path -> text), then the branch head.
func (s *Server) requestDescriptor(fdp *descriptorpb.FileDescriptorProto, files map[string][]byte, head string) (*protobuf.Schema, error) {
	return protobuf.FromDescriptorProto(fdp, func(name string) ([]byte, error) {
		if data, ok := files[name]; ok {
			return data, nil
		}
		return s.readAt(head, versions.ContractsDir+"/"+name)
	}, "")
}

// referencedFiles maps the import paths of a request's references to the texts of the
// versions they name.
func (snap *snapshot) referencedFiles(refs []Reference) map[string][]byte {
	files := map[string][]byte{}
	for _, ref := range snap.pinned(refs) {
		if rs := snap.subjects[ref.Subject]; rs != nil && ref.Version >= 1 && ref.Version <= len(rs.versions) {
			files[ref.Name] = rs.versions[ref.Version-1].text()
		}
	}
	return files
}

// descriptorKey identifies what a file declares whatever it is named, where its
// imports live and how its types were written: the FileDescriptorProto, type names
// fully qualified, without its name, imports, JSON names and source information.
// Two producers compiling one .proto under other paths get one key.
func descriptorKey(fdp *descriptorpb.FileDescriptorProto) string {
	c := proto.Clone(fdp).(*descriptorpb.FileDescriptorProto)
	c.Name, c.Dependency, c.PublicDependency, c.WeakDependency, c.SourceCodeInfo = nil, nil, nil, nil, nil
	eachField(c, func(f *descriptorpb.FieldDescriptorProto) { f.JsonName = nil })
	raw, _ := proto.MarshalOptions{Deterministic: true}.Marshal(c)
	sum := sha256.Sum256(raw)
	return hex.EncodeToString(sum[:])
}

// dropDefaultJSONNames leaves a field's json_name only where the file sets one, as
// protoc's descriptors in generated code have it.
func dropDefaultJSONNames(fdp *descriptorpb.FileDescriptorProto) {
	eachField(fdp, func(f *descriptorpb.FieldDescriptorProto) {
		if f.GetJsonName() == jsonName(f.GetName()) {
			f.JsonName = nil
		}
	})
}

// jsonName is protoc's default JSON name of a field: underscores dropped, the letter
// after each one upper-cased.
func jsonName(name string) string {
	var b strings.Builder
	up := false
	for _, r := range name {
		switch {
		case r == '_':
			up = true
		case up && 'a' <= r && r <= 'z':
			b.WriteRune(r - 'a' + 'A')
			up = false
		default:
			b.WriteRune(r)
			up = false
		}
	}
	return b.String()
}

func eachField(fdp *descriptorpb.FileDescriptorProto, fn func(*descriptorpb.FieldDescriptorProto)) {
	var walk func([]*descriptorpb.DescriptorProto)
	walk = func(ms []*descriptorpb.DescriptorProto) {
		for _, m := range ms {
			for _, f := range m.Field {
				fn(f)
			}
			for _, f := range m.Extension {
				fn(f)
			}
			walk(m.NestedType)
		}
	}
	walk(fdp.MessageType)
	for _, f := range fdp.Extension {
		fn(f)
	}
}

// lookUpDescriptor answers a look-up whose schema is a base64 FileDescriptorProto: the
// newest Protobuf version of the subject that declares the same (descriptorKey) and,
// when the request has references, has the same ones; 42201 when the descriptor does
// not link.
func (s *Server) lookUpDescriptor(w http.ResponseWriter, r *http.Request, snap *snapshot, se *subjectEntry, req schemaRequest, fdp *descriptorpb.FileDescriptorProto) {
	sc, err := s.requestDescriptor(fdp, snap.referencedFiles(req.References), snap.head)
	if err != nil {
		writeError(w, http.StatusUnprocessableEntity, CodeInvalidSchema, "Invalid schema: "+err.Error())
		return
	}
	key := descriptorKey(sc.DescriptorProto())
	refs := snap.pinned(req.References)
	cands := withContract(se.versions, req)
	for i := len(cands) - 1; i >= 0; i-- {
		c := cands[i]
		if c.typ != Protobuf || (len(refs) > 0 && !sameReferences(refs, c.refs)) {
			continue
		}
		if d, err := s.descriptor(c); err == nil && d.key == key {
			s.answer(w, r, c)
			return
		}
	}
	writeError(w, http.StatusNotFound, CodeSchemaNotFound, "Schema not found")
}
