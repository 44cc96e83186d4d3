package protobuf

import (
	"google.golang.org/protobuf/reflect/protoreflect"
)

var messageSameRequiredFields = rule{
	id:      "MESSAGE_SAME_REQUIRED_FIELDS",
	purpose: "A message neither gains nor loses required fields, since required fields must always be sent.",
	message: func(r *report, prev, cur protoreflect.MessageDescriptor) {
		pr, cr := requiredFields(prev), requiredFields(cur)
		for _, n := range sortedKeys(pr) {
			if _, ok := cr[n]; !ok {
				r.add(cur, prev, nil, "Message %q had required field \"%d\" deleted. Required fields must always be sent; keep it.", prev.Name(), n)
			}
		}
		for _, n := range sortedKeys(cr) {
			if _, ok := pr[n]; !ok {
				r.add(cr[n], nil, nil, "Message %q had required field \"%d\" added. Required fields must always be sent; make it optional.", cur.Name(), n)
			}
		}
	},
}

func requiredFields(md protoreflect.MessageDescriptor) map[protoreflect.FieldNumber]protoreflect.FieldDescriptor {
	out := map[protoreflect.FieldNumber]protoreflect.FieldDescriptor{}
	fs := md.Fields()
	for i := 0; i < fs.Len(); i++ {
		if fs.Get(i).Cardinality() == protoreflect.Required {
			out[fs.Get(i).Number()] = fs.Get(i)
		}
	}
	return out
}

var reservedMessageNoDelete = rule{
	id:      "RESERVED_MESSAGE_NO_DELETE",
	purpose: "A message keeps every reserved number and name, so they are never reused.",
	message: func(r *report, prev, cur protoreflect.MessageDescriptor) {
		reservedNoDelete(r, prev, cur, "message", inclusiveRanges(prev.ReservedRanges(), 1), inclusiveRanges(cur.ReservedRanges(), 1),
			prev.ReservedNames(), cur.ReservedNames())
	},
}

var messageSameJSONFormat = rule{
	id:      "MESSAGE_SAME_JSON_FORMAT",
	purpose: "A message that had a guaranteed JSON form keeps it.",
	message: func(r *report, prev, cur protoreflect.MessageDescriptor) {
		if jsonFormatAllowed(prev) && !jsonFormatAllowed(cur) {
			r.add(cur, prev, nil, "Message %q JSON format support changed from ALLOW to LEGACY_BEST_EFFORT.", cur.Name())
		}
	},
}

var fieldNoDeleteUnlessNumberReserved = rule{
	id:      "FIELD_NO_DELETE_UNLESS_NUMBER_RESERVED",
	purpose: "A field is deleted only with its number reserved, so the number is never reused with another meaning.",
	message: func(r *report, prev, cur protoreflect.MessageDescriptor) {
		fieldNoDelete(r, prev, cur, true)
	},
}

var fieldNoDeleteUnlessNameReserved = rule{
	id:      "FIELD_NO_DELETE_UNLESS_NAME_RESERVED",
	purpose: "A field is deleted only with its name reserved, so its JSON name is never reused.",
	message: func(r *report, prev, cur protoreflect.MessageDescriptor) {
		fieldNoDelete(r, prev, cur, false)
	},
}

func fieldNoDelete(r *report, prev, cur protoreflect.MessageDescriptor, byNumber bool) {
	fs, cix := prev.Fields(), indexFields(cur.Fields())
	for i := 0; i < fs.Len(); i++ {
		pf := fs.Get(i)
		if cix.ByNumber(pf.Number()) != nil {
			continue
		}
		if byNumber {
			if cur.ReservedRanges().Has(pf.Number()) {
				continue
			}
			r.add(cur, prev, nil, "Previously present field \"%d\" with name %q on message %q was deleted without reserving the number \"%d\"; add `reserved %d;`.", pf.Number(), pf.Name(), cur.Name(), pf.Number(), pf.Number())
			continue
		}
		if cur.ReservedNames().Has(pf.Name()) {
			continue
		}
		r.add(cur, prev, nil, "Previously present field \"%d\" with name %q on message %q was deleted without reserving the name %q; add `reserved \"%s\";`.", pf.Number(), pf.Name(), cur.Name(), pf.Name(), pf.Name())
	}
}
