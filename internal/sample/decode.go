package sample

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"slices"
	"sort"
	"strings"

	"github.com/hamba/avro/v2"
	sv "github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/twmb/franz-go/pkg/sr"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/contractbot/contractbot/checker"
)

// decoder decodes and judges payloads of one schema version.
type decoder struct {
	format checker.Format
	// paths are the schema's dotted field paths, sorted; has resolves any path.
	paths []string
	has   func(string) bool

	avro   avro.Schema
	avroIO avro.API

	record protoreflect.MessageDescriptor
	file   protoreflect.FileDescriptor

	json *sv.Schema
}

// protoSchema is implemented by checker/protobuf's schemas.
type protoSchema interface {
	File() protoreflect.FileDescriptor
	Record() protoreflect.MessageDescriptor
}

// avroSchema is implemented by checker/avro's schemas.
type avroSchema interface{ Avro() avro.Schema }

// newDecoder prepares the decoding of a parsed schema; text is the schema file's
// content (JSON Schema is compiled from it) and resolve reads the files it refers to.
func newDecoder(sch checker.Schema, text []byte, resolve func(string) ([]byte, error), maxBytes int) (*decoder, error) {
	d := &decoder{format: sch.Format(), paths: slices.Clone(sch.FieldPaths())}
	sort.Strings(d.paths)
	if g := sch.FieldGraph(); g != nil {
		d.has = g.Has
	} else {
		d.has = func(p string) bool { _, ok := slices.BinarySearch(d.paths, p); return ok }
	}
	switch s := sch.(type) {
	case avroSchema:
		d.avro = s.Avro()
		d.avroIO = avro.Config{MaxByteSliceSize: maxBytes, MaxSliceAllocSize: maxBytes}.Freeze()
	case protoSchema:
		d.record, d.file = s.Record(), s.File()
		if d.record == nil || d.file == nil {
			return nil, errors.New("the Protobuf schema has no record message")
		}
	default:
		if sch.Format() != "json" {
			return nil, fmt.Errorf("contractbot sample cannot decode the %s format", sch.Format())
		}
		c, err := compileJSONSchema(text, resolve)
		if err != nil {
			return nil, err
		}
		d.json = c
	}
	return d, nil
}

// memBase is the URL JSON Schema documents are known by to the validator.
const memBase = "mem:///contracts/"

// compileJSONSchema compiles a JSON Schema with santhosh-tekuri/jsonschema; its $refs
// to other files are read through resolve, never the network.
func compileJSONSchema(text []byte, resolve func(string) ([]byte, error)) (*sv.Schema, error) {
	doc, err := sv.UnmarshalJSON(bytes.NewReader(text))
	if err != nil {
		return nil, err
	}
	c := sv.NewCompiler()
	c.DefaultDraft(sv.Draft7)
	c.UseLoader(refLoader(resolve))
	const main = memBase + "schema.json"
	if err := c.AddResource(main, doc); err != nil {
		return nil, err
	}
	return c.Compile(main)
}

// refLoader serves the tree's files to the JSON Schema compiler.
type refLoader func(string) ([]byte, error)

func (l refLoader) Load(u string) (any, error) {
	p, err := url.PathUnescape(strings.TrimPrefix(u, memBase))
	if err != nil || !strings.HasPrefix(u, memBase) || l == nil {
		return nil, fmt.Errorf("%s is not a file of the contract tree", u)
	}
	data, err := l(p)
	if err != nil {
		return nil, err
	}
	return sv.UnmarshalJSON(bytes.NewReader(data))
}

// decodeFramed decodes the payload after the magic byte and id (for Protobuf, the
// message indexes come first) and returns the value as rules see it (when value:
// nil otherwise, sparing the conversion).
func (d *decoder) decodeFramed(payload []byte, p *problems, value bool) (any, error) {
	switch {
	case d.avro != nil:
		return d.decodeAvro(payload, value)
	case d.record != nil:
		return d.decodeProto(payload, p, value)
	default:
		doc, err := parseJSON(payload)
		if err != nil {
			return nil, fmt.Errorf("not valid JSON: %w", err)
		}
		d.judgeJSON(doc, p)
		if !value {
			return nil, nil
		}
		return celValue(doc), nil
	}
}

// decodeAvro decodes Avro binary with hamba/avro: the whole payload, no byte left.
func (d *decoder) decodeAvro(payload []byte, value bool) (any, error) {
	r := avro.NewReader(nil, 0, avro.WithReaderConfig(d.avroIO))
	r.Reset(payload)
	var v any
	r.ReadVal(d.avro, &v)
	if r.Error != nil {
		if errors.Is(r.Error, io.EOF) || errors.Is(r.Error, io.ErrUnexpectedEOF) {
			return nil, errors.New("the payload ends before the record does")
		}
		return nil, r.Error
	}
	if r.Peek(); r.Error == nil {
		return nil, errors.New("bytes are left over after the record: it was written with another schema")
	}
	if !value {
		return nil, nil
	}
	return avroValue(d.avro, v), nil
}

// confluent reads Confluent's framing (franz-go's sr).
var confluent sr.ConfluentHeader

// decodeProto reads the message indexes, finds the message they name and decodes the
// payload into it with dynamicpb; fields the schema lacks are undeclared-field.
func (d *decoder) decodeProto(payload []byte, p *problems, value bool) (any, error) {
	idx, rest, err := confluent.DecodeIndex(payload, 64)
	if err != nil {
		return nil, fmt.Errorf("the message indexes do not read: %w", err)
	}
	md, err := messageAt(d.file, idx)
	if err != nil {
		return nil, err
	}
	if md.FullName() != d.record.FullName() {
		return nil, fmt.Errorf("the message indexes %v name %s, but the contract's record is %s", idx, md.FullName(), d.record.FullName())
	}
	m := dynamicpb.NewMessage(md)
	if err := (proto.UnmarshalOptions{RecursionLimit: 64}).Unmarshal(rest, m); err != nil {
		return nil, err
	}
	unknownFields(m, "", p)
	if !value {
		return nil, nil
	}
	return protoValue(m), nil
}

// messageAt resolves Confluent's message indexes in a file ([] is the first message).
func messageAt(fd protoreflect.FileDescriptor, idx []int) (protoreflect.MessageDescriptor, error) {
	if len(idx) == 0 {
		idx = []int{0}
	}
	msgs := fd.Messages()
	var md protoreflect.MessageDescriptor
	for _, i := range idx {
		if i < 0 || i >= msgs.Len() {
			return nil, fmt.Errorf("the message indexes %v name no message of %s", idx, fd.Path())
		}
		md = msgs.Get(i)
		msgs = md.Messages()
	}
	return md, nil
}

// parseJSON decodes one JSON value (numbers kept as json.Number), refusing trailing
// text.
func parseJSON(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("text after the JSON value")
	}
	return v, nil
}
