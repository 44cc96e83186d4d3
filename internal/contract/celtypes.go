package contract

import (
	"errors"
	"slices"

	"cel.dev/cel-go/cel"
	"cel.dev/cel-go/common/types"
	"cel.dev/cel-go/ext"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/contractbot/contractbot/checker"
)

// ruleTypes is what a schema tells data rules about its values: the CEL declarations
// of its record types and the type of the record itself.
type ruleTypes struct {
	// typed is false when the format cannot give its types: `message` is dyn and only
	// the field names of message.a.b chains are checked.
	typed bool
	opts  []cel.EnvOption
	// message is the record's type (`message` of CEL rules); fieldMessage is the type
	// of `message` in CEL_FIELD rules, the record that contains the field: the root
	// record when no field is nested in another record, dyn otherwise.
	message, fieldMessage *cel.Type
}

// protoRecord is implemented by Protobuf schemas (checker/protobuf): the record
// message, whose descriptors CEL reads as Confluent's executors do.
type protoRecord interface {
	Record() protoreflect.MessageDescriptor
}

// newRuleTypes reads the types of a parsed schema; nil schema or a format that cannot
// give them yields an untyped environment.
func newRuleTypes(sch checker.Schema) *ruleTypes {
	switch s := sch.(type) {
	case protoRecord:
		if md := s.Record(); md != nil {
			return protoRuleTypes(md)
		}
	case checker.ValueTyper:
		return valueRuleTypes(s.ValueTypes())
	}
	return &ruleTypes{message: cel.DynType, fieldMessage: cel.DynType}
}

// protoRuleTypes declares the record message's file and the files it imports, as
// cel-go reads Protobuf messages (enums are ints, wrappers nullable, Timestamp a
// timestamp).
func protoRuleTypes(md protoreflect.MessageDescriptor) *ruleTypes {
	var files []any
	seen := map[string]bool{}
	var add func(fd protoreflect.FileDescriptor)
	add = func(fd protoreflect.FileDescriptor) {
		if seen[fd.Path()] {
			return
		}
		seen[fd.Path()] = true
		imps := fd.Imports()
		for i := range imps.Len() {
			add(imps.Get(i).FileDescriptor)
		}
		files = append(files, fd)
	}
	add(md.ParentFile())
	msg := cel.ObjectType(string(md.FullName()))
	rt := &ruleTypes{typed: true, opts: []cel.EnvOption{cel.TypeDescs(files...)}, message: msg, fieldMessage: msg}
	fs := md.Fields()
	for i := range fs.Len() {
		if fd := fs.Get(i); fd.Message() != nil && !fd.IsMap() {
			rt.fieldMessage = cel.DynType
			break
		}
	}
	return rt
}

// valueRuleTypes declares each record of vt as a CEL object type through a type
// provider over cel-go's own registry.
func valueRuleTypes(vt checker.ValueTypes) *ruleTypes {
	reg, err := types.NewRegistry()
	if err != nil {
		return &ruleTypes{message: cel.DynType, fieldMessage: cel.DynType}
	}
	p := &recordProvider{Registry: reg, records: map[string]map[string]*types.Type{}}
	for name, fields := range vt.Records {
		m := make(map[string]*types.Type, len(fields))
		for _, f := range fields {
			m[f.Name] = celType(f.Type)
		}
		p.records[name] = m
	}
	msg := celType(vt.Root)
	rt := &ruleTypes{typed: true, opts: []cel.EnvOption{cel.CustomTypeProvider(p)}, message: msg, fieldMessage: msg}
	if len(vt.Records) > 1 {
		rt.fieldMessage = cel.DynType
	}
	return rt
}

// scalarTypes are the CEL types of the scalar kinds.
var scalarTypes = map[checker.ValueKind]*types.Type{
	checker.ValueBool: types.BoolType, checker.ValueInt: types.IntType, checker.ValueUint: types.UintType,
	checker.ValueDouble: types.DoubleType, checker.ValueString: types.StringType, checker.ValueBytes: types.BytesType,
}

// celType is the CEL type of values of type v: a nullable scalar is CEL's wrapper
// type (comparable with null and usable as the scalar), records are object types.
func celType(v checker.ValueType) *types.Type {
	if t, ok := scalarTypes[v.Kind]; ok {
		if v.Nullable {
			return types.NewNullableType(t)
		}
		return t
	}
	switch v.Kind {
	case checker.ValueNull:
		return types.NullType
	case checker.ValueRecord:
		return types.NewObjectType(v.Record)
	case checker.ValueList:
		return types.NewListType(celTypeOf(v.Elem))
	case checker.ValueMap:
		return types.NewMapType(celTypeOf(v.Key), celTypeOf(v.Elem))
	}
	return types.DynType
}

func celTypeOf(v *checker.ValueType) *types.Type {
	if v == nil {
		return types.DynType
	}
	return celType(*v)
}

// recordProvider is cel-go's type registry plus the schema's records as object types.
// It declares types for the type checker only: rules are never evaluated here.
type recordProvider struct {
	*types.Registry
	records map[string]map[string]*types.Type
}

// FindStructType implements types.Provider.
func (p *recordProvider) FindStructType(name string) (*types.Type, bool) {
	if _, ok := p.records[name]; ok {
		return types.NewTypeTypeWithParam(types.NewObjectType(name)), true
	}
	return p.Registry.FindStructType(name)
}

// FindStructFieldNames implements types.Provider.
func (p *recordProvider) FindStructFieldNames(name string) ([]string, bool) {
	if fs, ok := p.records[name]; ok {
		names := make([]string, 0, len(fs))
		for n := range fs {
			names = append(names, n)
		}
		slices.Sort(names)
		return names, true
	}
	return p.Registry.FindStructFieldNames(name)
}

// FindStructFieldType implements types.Provider.
func (p *recordProvider) FindStructFieldType(name, field string) (*types.FieldType, bool) {
	fs, ok := p.records[name]
	if !ok {
		return p.Registry.FindStructFieldType(name, field)
	}
	t, ok := fs[field]
	if !ok {
		return nil, false
	}
	return &types.FieldType{Type: t,
		IsSet:   func(any) bool { return false },
		GetFrom: func(any) (any, error) { return nil, errNotEvaluated }}, true
}

// ruleLibrary is what Confluent's CEL executors add to standard CEL: comparisons
// between numbers of different types, the strings extension, and the string checks
// isEmail, isHostname, isIpv4, isIpv6, isUri, isUriRef and isUuid (declared for the
// type checker; contractbot never evaluates a rule).
func ruleLibrary() []cel.EnvOption {
	opts := []cel.EnvOption{cel.CrossTypeNumericComparisons(true), ext.Strings()}
	for _, name := range []string{"isEmail", "isHostname", "isIpv4", "isIpv6", "isUri", "isUriRef", "isUuid"} {
		opts = append(opts, cel.Function(name, cel.MemberOverload("string_"+name, []*cel.Type{cel.StringType}, cel.BoolType)))
	}
	return opts
}

// env is the environment of a rule of type typ ("CEL" or "CEL_FIELD"), with the
// variables Confluent's executors bind: `message` for CEL; `value`, `fullName`,
// `name`, `typeName`, `tags` and the containing `message` for CEL_FIELD.
func (rt *ruleTypes) env(typ string) (*cel.Env, error) {
	opts := append(ruleLibrary(), rt.opts...)
	switch typ {
	case "CEL":
		opts = append(opts, cel.Variable("message", rt.message))
	case "CEL_FIELD":
		opts = append(opts, cel.Variable("message", rt.fieldMessage), cel.Variable("value", cel.DynType),
			cel.Variable("fullName", cel.StringType), cel.Variable("name", cel.StringType),
			cel.Variable("typeName", cel.StringType), cel.Variable("tags", cel.ListType(cel.StringType)))
	default:
		return nil, nil
	}
	return cel.NewEnv(opts...)
}

var errNotEvaluated = errors.New("contractbot type-checks data rules and never evaluates them")
