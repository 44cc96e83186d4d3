package protobuf

import "google.golang.org/protobuf/reflect/protoreflect"

// fieldIndex finds a message's fields by number and by name in constant time:
// protocompile's descriptors look them up by scanning every field, which makes a
// comparison of two messages of n fields cost n^2. Build one per message compared.
type fieldIndex struct {
	fs       protoreflect.FieldDescriptors
	byNumber map[protoreflect.FieldNumber]protoreflect.FieldDescriptor
	byName   map[protoreflect.Name]protoreflect.FieldDescriptor
}

// smallMessage is the number of fields under which a scan beats building maps.
const smallMessage = 16

func indexFields(fs protoreflect.FieldDescriptors) fieldIndex {
	ix := fieldIndex{fs: fs}
	if fs.Len() <= smallMessage {
		return ix
	}
	ix.byNumber = make(map[protoreflect.FieldNumber]protoreflect.FieldDescriptor, fs.Len())
	ix.byName = make(map[protoreflect.Name]protoreflect.FieldDescriptor, fs.Len())
	for i := 0; i < fs.Len(); i++ {
		fd := fs.Get(i)
		if _, dup := ix.byNumber[fd.Number()]; !dup {
			ix.byNumber[fd.Number()] = fd
		}
		if _, dup := ix.byName[fd.Name()]; !dup {
			ix.byName[fd.Name()] = fd
		}
	}
	return ix
}

// ByNumber is FieldDescriptors.ByNumber.
func (ix fieldIndex) ByNumber(n protoreflect.FieldNumber) protoreflect.FieldDescriptor {
	if ix.byNumber == nil {
		return ix.fs.ByNumber(n)
	}
	return ix.byNumber[n]
}

// ByName is FieldDescriptors.ByName.
func (ix fieldIndex) ByName(n protoreflect.Name) protoreflect.FieldDescriptor {
	if ix.byName == nil {
		return ix.fs.ByName(n)
	}
	return ix.byName[n]
}
