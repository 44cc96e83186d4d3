package protobuf

import (
	"cmp"
	"maps"
	"slices"
	"strconv"
	"strings"

	"google.golang.org/protobuf/reflect/protoreflect"
)

// The Confluent Schema Registry's Protobuf difference kinds (Difference.Type).
const (
	PackageChanged             = "PACKAGE_CHANGED"
	MessageAdded               = "MESSAGE_ADDED"
	MessageRemoved             = "MESSAGE_REMOVED"
	MessageMoved               = "MESSAGE_MOVED"
	EnumAdded                  = "ENUM_ADDED"
	EnumRemoved                = "ENUM_REMOVED"
	EnumConstAdded             = "ENUM_CONST_ADDED"
	EnumConstChanged           = "ENUM_CONST_CHANGED"
	EnumConstRemoved           = "ENUM_CONST_REMOVED"
	FieldAdded                 = "FIELD_ADDED"
	FieldRemoved               = "FIELD_REMOVED"
	FieldNameChanged           = "FIELD_NAME_CHANGED"
	FieldKindChanged           = "FIELD_KIND_CHANGED"
	FieldScalarKindChanged     = "FIELD_SCALAR_KIND_CHANGED"
	FieldNamedTypeChanged      = "FIELD_NAMED_TYPE_CHANGED"
	FieldNumericLabelChanged   = "FIELD_NUMERIC_LABEL_CHANGED"
	FieldStringOrBytesLabel    = "FIELD_STRING_OR_BYTES_LABEL_CHANGED"
	RequiredFieldAdded         = "REQUIRED_FIELD_ADDED"
	RequiredFieldRemoved       = "REQUIRED_FIELD_REMOVED"
	OneofAdded                 = "ONEOF_ADDED"
	OneofRemoved               = "ONEOF_REMOVED"
	OneofFieldAdded            = "ONEOF_FIELD_ADDED"
	OneofFieldRemoved          = "ONEOF_FIELD_REMOVED"
	OneofFieldMovedToTopLevel  = "ONEOF_FIELD_MOVED_TO_TOP_LEVEL"
	MultipleFieldsMovedToOneof = "MULTIPLE_FIELDS_MOVED_TO_ONEOF"
	FieldMovedToExistingOneof  = "FIELD_MOVED_TO_EXISTING_ONEOF"
)

// compatibleDifferences are the kinds that keep a change compatible in the direction
// compared (original readers of update data / update readers of original data).
var compatibleDifferences = map[string]bool{
	MessageAdded: true, MessageMoved: true,
	EnumAdded: true, EnumRemoved: true,
	EnumConstAdded: true, EnumConstChanged: true, EnumConstRemoved: true,
	FieldAdded: true, FieldRemoved: true, FieldNameChanged: true,
	FieldStringOrBytesLabel: true,
	OneofAdded:              true, OneofRemoved: true, OneofFieldAdded: true,
	OneofFieldMovedToTopLevel: true,
}

// difference is one Confluent difference: its kind, its registry path (`#/Msg/3`) and
// the elements it concerns on each side (either may be nil).
type difference struct {
	Kind string
	Path string
	orig protoreflect.Descriptor
	upd  protoreflect.Descriptor
}

// String renders a difference the way Confluent's test corpus does: `KIND #/path`.
func (d difference) String() string { return d.Kind + " " + d.Path }

// diffCtx carries the state of one Confluent comparison.
type diffCtx struct {
	origFile, updFile protoreflect.FileDescriptor
	path              []string
	// onStack holds the original messages being compared, to stop recursion.
	onStack map[protoreflect.FullName]bool
	// compared memoises imported message pairs compared on their own: whether they
	// are compatible (their differences, the same wherever the pair is met, are
	// listed once). A message reused at every level of a deep tree is compared once.
	compared map[[2]protoreflect.FullName]bool
	diffs    []difference
}

func (c *diffCtx) add(kind string, orig, upd protoreflect.Descriptor) {
	c.diffs = append(c.diffs, difference{Kind: kind, Path: "#/" + strings.Join(c.path, "/"), orig: orig, upd: upd})
}

func (c *diffCtx) push(p string) { c.path = append(c.path, p) }
func (c *diffCtx) pop()          { c.path = c.path[:len(c.path)-1] }

func (c *diffCtx) sub(path []string) *diffCtx {
	return &diffCtx{origFile: c.origFile, updFile: c.updFile, path: path, onStack: c.onStack, compared: c.compared}
}

func (c *diffCtx) compatible() bool {
	for _, d := range c.diffs {
		if !compatibleDifferences[d.Kind] {
			return false
		}
	}
	return true
}

// confluentDiff compares two files as the registry does (SchemaDiff.compare): the
// differences a reader of original data sees when the writer moves to update.
func confluentDiff(orig, upd protoreflect.FileDescriptor) []difference {
	c := &diffCtx{origFile: orig, updFile: upd, onStack: map[protoreflect.FullName]bool{}, compared: map[[2]protoreflect.FullName]bool{}}
	if orig.Package() != upd.Package() {
		c.add(PackageChanged, orig, upd)
	}
	compareTypeElements(c, orig.Messages(), orig.Enums(), upd.Messages(), upd.Enums())
	return c.diffs
}

// typeElements indexes the messages (without map entries) and enums of one scope.
type typeElements struct {
	messages map[string]protoreflect.MessageDescriptor
	index    map[string]int
	enums    map[string]protoreflect.EnumDescriptor
}

func indexTypes(msgs protoreflect.MessageDescriptors, enums protoreflect.EnumDescriptors) typeElements {
	t := typeElements{messages: map[string]protoreflect.MessageDescriptor{}, index: map[string]int{}, enums: map[string]protoreflect.EnumDescriptor{}}
	n := 0
	for i := 0; i < msgs.Len(); i++ {
		md := msgs.Get(i)
		if md.IsMapEntry() {
			continue
		}
		name := string(md.Name())
		t.messages[name] = md
		t.index[name] = n
		n++
	}
	for i := 0; i < enums.Len(); i++ {
		ed := enums.Get(i)
		t.enums[string(ed.Name())] = ed
	}
	return t
}

// unionKeys returns the keys of a and b, sorted, each once.
func unionKeys[K cmp.Ordered, V any](a, b map[K]V) []K {
	keys := slices.AppendSeq(slices.Collect(maps.Keys(a)), maps.Keys(b))
	slices.Sort(keys)
	return slices.Compact(keys)
}

func compareTypeElements(c *diffCtx, om protoreflect.MessageDescriptors, oe protoreflect.EnumDescriptors, um protoreflect.MessageDescriptors, ue protoreflect.EnumDescriptors) {
	o, u := indexTypes(om, oe), indexTypes(um, ue)
	for _, name := range unionKeys(o.messages, u.messages) {
		c.push(name)
		om, um := o.messages[name], u.messages[name]
		switch {
		case um == nil:
			c.add(MessageRemoved, om, nil)
		case om == nil:
			c.add(MessageAdded, nil, um)
		default:
			compareMessages(c, om, um)
			if o.index[name] != u.index[name] {
				c.add(MessageMoved, om, um)
			}
		}
		c.pop()
	}
	for _, name := range unionKeys(o.enums, u.enums) {
		c.push(name)
		oe, ue := o.enums[name], u.enums[name]
		switch {
		case ue == nil:
			c.add(EnumRemoved, oe, nil)
		case oe == nil:
			c.add(EnumAdded, nil, ue)
		default:
			compareEnums(c, oe, ue)
		}
		c.pop()
	}
}

func compareEnums(c *diffCtx, o, u protoreflect.EnumDescriptor) {
	ov, uv := enumValuesByNumber(o), enumValuesByNumber(u)
	for _, n := range unionKeys(ov, uv) {
		c.push(strconv.Itoa(int(n)))
		a, b := ov[n], uv[n]
		switch {
		case b == nil:
			c.add(EnumConstRemoved, a, nil)
		case a == nil:
			c.add(EnumConstAdded, nil, b)
		case a.Name() != b.Name():
			c.add(EnumConstChanged, a, b)
		}
		c.pop()
	}
}

// enumValuesByNumber maps numbers to values; with aliases the last one wins, as in
// the registry.
func enumValuesByNumber(e protoreflect.EnumDescriptor) map[protoreflect.EnumNumber]protoreflect.EnumValueDescriptor {
	out := map[protoreflect.EnumNumber]protoreflect.EnumValueDescriptor{}
	vals := e.Values()
	for i := 0; i < vals.Len(); i++ {
		out[vals.Get(i).Number()] = vals.Get(i)
	}
	return out
}
