package registry

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"slices"
	"testing"

	"github.com/bufbuild/protocompile"
	"github.com/twmb/franz-go/pkg/sr"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"
	_ "google.golang.org/protobuf/types/known/timestamppb" // google/protobuf/timestamp.proto in GlobalFiles
)

const (
	paymentSubject = "payments.payment-authorized-value"
	moneySubject   = "common.money-value"
)

// decodeFDP reads a serialized schema as a Confluent client does: base64 of a
// FileDescriptorProto's bytes.
func decodeFDP(t *testing.T, schema string) *descriptorpb.FileDescriptorProto {
	t.Helper()
	raw, err := base64.StdEncoding.DecodeString(schema)
	if err != nil {
		t.Fatalf("the serialized schema is not base64: %v (%.60q)", err, schema)
	}
	var fdp descriptorpb.FileDescriptorProto
	if err := proto.Unmarshal(raw, &fdp); err != nil {
		t.Fatalf("the serialized schema is not a FileDescriptorProto: %v", err)
	}
	return &fdp
}

// clientDescriptor compiles a schema file of the test repository as a producer's
// protoc would, under its own file name: the serialized form a Python or JavaScript
// serializer sends.
func clientDescriptor(t *testing.T, dir, path string) string {
	t.Helper()
	comp := protocompile.Compiler{Resolver: protocompile.WithStandardImports(&protocompile.SourceResolver{ImportPaths: []string{filepath.Join(dir, "contracts")}})}
	files, err := comp.Compile(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	fdp := protodesc.ToFileDescriptorProto(files[0])
	fdp.SourceCodeInfo = nil
	fdp.Name = proto.String(filepath.Base(path)) // the producer's own path, not the registry's
	raw, err := proto.Marshal(fdp)
	if err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(raw)
}

// TestSerializedFormat: with ?format=serialized, a Protobuf schema read by id, by
// subject and version and through a look-up is a base64 FileDescriptorProto whose
// imports are its references (and the well-known types), which links the way
// Confluent's JavaScript deserializer links it; a producer's serialized schema finds
// its version in a look-up and passes the compatibility test (franz-go's client).
func TestSerializedFormat(t *testing.T) {
	_, ts, dir := newTestServer(t)
	cl, err := sr.NewClient(sr.URLs(ts.URL))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	ser := sr.WithParams(ctx, sr.Format("serialized"))

	latest, err := cl.SchemaByVersion(ser, paymentSubject, -1)
	if err != nil {
		t.Fatal(err)
	}
	fdp := decodeFDP(t, latest.Schema.Schema)
	if got, want := fdp.GetName(), "payments/payment-authorized/payment_authorized.proto"; got != want {
		t.Errorf("name = %q, want %q (the import path, which references name)", got, want)
	}
	if !slices.Contains(fdp.GetDependency(), "common/money/money.proto") || !slices.Contains(fdp.GetDependency(), "google/protobuf/timestamp.proto") {
		t.Errorf("dependencies = %v", fdp.GetDependency())
	}
	if len(latest.References) != 1 || latest.References[0].Name != "common/money/money.proto" || latest.References[0].Subject != moneySubject {
		t.Fatalf("references = %+v, want common/money/money.proto of %s", latest.References, moneySubject)
	}
	// Link it as a deserializer does: each reference read in the serialized form, the
	// well-known types built in.
	ref := latest.References[0]
	money, err := cl.SchemaByVersion(ser, ref.Subject, ref.Version)
	if err != nil {
		t.Fatal(err)
	}
	mfdp := decodeFDP(t, money.Schema.Schema)
	mfdp.Name = proto.String(ref.Name)
	files := new(protoregistry.Files)
	ts0, _ := protoregistry.GlobalFiles.FindFileByPath("google/protobuf/timestamp.proto")
	if err := files.RegisterFile(ts0); err != nil {
		t.Fatal(err)
	}
	mfd, err := protodesc.NewFile(mfdp, files)
	if err != nil {
		t.Fatalf("the money schema does not link: %v", err)
	}
	if err := files.RegisterFile(mfd); err != nil {
		t.Fatal(err)
	}
	fd, err := protodesc.NewFile(fdp, files)
	if err != nil {
		t.Fatalf("the serialized schema does not link with its references: %v", err)
	}
	if amount := fd.Messages().ByName("PaymentAuthorized").Fields().ByName("amount"); amount == nil || amount.Message().FullName() != "acme.common.v1.Money" {
		t.Errorf("PaymentAuthorized.amount does not resolve to acme.common.v1.Money")
	}
	if fd.Messages().ByName("BankTransfer").Fields().ByName("iban") == nil {
		t.Errorf("the latest version's BankTransfer has no iban")
	}

	byID, err := cl.SchemaByID(ser, latest.ID)
	if err != nil {
		t.Fatal(err)
	}
	if byID.Schema != latest.Schema.Schema {
		t.Errorf("by id the serialized schema differs from the version's")
	}
	for _, path := range []string{fmt.Sprintf("/schemas/ids/%d/schema", latest.ID), fmt.Sprintf("/subjects/%s/versions/%d/schema", paymentSubject, latest.Version)} {
		resp, err := http.Get(ts.URL + path + "?format=serialized")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if string(body) != latest.Schema.Schema || resp.Header.Get("Cache-Control") != ImmutableCacheControl {
			t.Errorf("%s?format=serialized = %.40q (Cache-Control %q), want the version's serialized schema", path, body, resp.Header.Get("Cache-Control"))
		}
	}
	text, err := cl.SchemaByID(ctx, latest.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := fromSerialized(text.Schema); ok || text.Schema == byID.Schema {
		t.Errorf("without format=serialized the schema is not text")
	}

	// A producer's descriptor (its own file name) finds the version, in both forms.
	produced := clientDescriptor(t, dir, "payments/payment-authorized/payment_authorized.proto")
	for _, c := range []context.Context{ctx, ser} {
		got, err := cl.LookupSchema(c, paymentSubject, sr.Schema{Schema: produced, Type: sr.TypeProtobuf, References: latest.References})
		if err != nil {
			t.Fatalf("look-up of the serialized schema: %v", err)
		}
		if got.ID != latest.ID || got.Version != latest.Version {
			t.Errorf("look-up = id %d version %d, want id %d version %d", got.ID, got.Version, latest.ID, latest.Version)
		}
		if _, isSer := fromSerialized(got.Schema.Schema); isSer != (c == ser) {
			t.Errorf("look-up answered serialized=%v, want %v", isSer, c == ser)
		}
	}
	// Without the references too (a look-up matches by what the file declares).
	if got, err := cl.LookupSchema(ctx, paymentSubject, sr.Schema{Schema: produced, Type: sr.TypeProtobuf}); err != nil || got.ID != latest.ID {
		t.Errorf("look-up without references = %v, %v", got.ID, err)
	}
	// An earlier version's descriptor finds version 1.
	first, err := cl.SchemaByVersion(ser, paymentSubject, 1)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := cl.LookupSchema(ctx, paymentSubject, sr.Schema{Schema: first.Schema.Schema, Type: sr.TypeProtobuf, References: first.References}); err != nil || got.Version != 1 {
		t.Errorf("look-up of version 1's serialized form = version %d, %v", got.Version, err)
	}
	res, err := cl.CheckCompatibility(ctx, paymentSubject, -1, sr.Schema{Schema: produced, Type: sr.TypeProtobuf, References: latest.References})
	if err != nil || !res.Is {
		t.Errorf("compatibility of the serialized schema = %+v, %v", res, err)
	}
	// A descriptor whose imports are gone does not link: an invalid schema.
	broken := decodeFDP(t, produced)
	broken.Dependency = nil
	raw, _ := proto.Marshal(broken)
	if _, err := cl.LookupSchema(ctx, paymentSubject, sr.Schema{Schema: base64.StdEncoding.EncodeToString(raw), Type: sr.TypeProtobuf}); err == nil {
		t.Errorf("a descriptor whose imports are missing was found")
	} else if re := (*sr.ResponseError)(nil); !errors.As(err, &re) || re.ErrorCode != CodeInvalidSchema {
		t.Errorf("a descriptor that does not link: %v, want 42201", err)
	}
}

// TestSerializedFormatWithFranzSerde: the serialized descriptor of a Protobuf version
// (with its reference's) builds Go's dynamic messages, which franz-go's serde writes
// with the version's id and message index and reads back, as a Go consumer that knows
// no .proto file would.
func TestSerializedFormatWithFranzSerde(t *testing.T) {
	_, ts, _ := newTestServer(t)
	cl, err := sr.NewClient(sr.URLs(ts.URL))
	if err != nil {
		t.Fatal(err)
	}
	ser := sr.WithParams(context.Background(), sr.Format("serialized"))
	latest, err := cl.SchemaByVersion(ser, paymentSubject, -1)
	if err != nil {
		t.Fatal(err)
	}
	files := new(protoregistry.Files)
	wkt, _ := protoregistry.GlobalFiles.FindFileByPath("google/protobuf/timestamp.proto")
	if err := files.RegisterFile(wkt); err != nil {
		t.Fatal(err)
	}
	for _, ref := range latest.References {
		dep, err := cl.SchemaByVersion(ser, ref.Subject, ref.Version)
		if err != nil {
			t.Fatal(err)
		}
		fd, err := protodesc.NewFile(decodeFDP(t, dep.Schema.Schema), files)
		if err != nil {
			t.Fatal(err)
		}
		if err := files.RegisterFile(fd); err != nil {
			t.Fatal(err)
		}
	}
	fd, err := protodesc.NewFile(decodeFDP(t, latest.Schema.Schema), files)
	if err != nil {
		t.Fatal(err)
	}
	md := fd.Messages().ByName("PaymentAuthorized")
	serde := sr.NewSerde()
	serde.Register(latest.ID, &dynamicpb.Message{},
		sr.EncodeFn(func(v any) ([]byte, error) { return proto.Marshal(v.(*dynamicpb.Message)) }),
		sr.DecodeFn(func(b []byte, v any) error { return proto.Unmarshal(b, v.(*dynamicpb.Message)) }),
		sr.Index(0))
	msg := dynamicpb.NewMessage(md)
	msg.Set(md.Fields().ByName("payment_id"), protoreflect.ValueOfString("p-1"))
	amount := msg.Mutable(md.Fields().ByName("amount")).Message()
	amount.Set(amount.Descriptor().Fields().ByName("currency_code"), protoreflect.ValueOfString("EUR"))
	wire, err := serde.Encode(msg)
	if err != nil {
		t.Fatal(err)
	}
	if id, _, err := serde.DecodeID(wire); err != nil || id != latest.ID {
		t.Errorf("the message carries id %d (%v), want %d", id, err, latest.ID)
	}
	back := dynamicpb.NewMessage(md)
	if err := serde.Decode(wire, back); err != nil {
		t.Fatal(err)
	}
	if !proto.Equal(msg, back) {
		t.Errorf("read back %v, wrote %v", back, msg)
	}
}
