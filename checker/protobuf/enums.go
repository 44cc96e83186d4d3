package protobuf

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"google.golang.org/protobuf/reflect/protoreflect"
)

// Source paths inside an EnumValueDescriptorProto.
var enumValueNumberPath = []int32{2}

var reservedEnumNoDelete = rule{
	id:      "RESERVED_ENUM_NO_DELETE",
	purpose: "An enum keeps every reserved number and name, so they are never reused.",
	enum: func(r *report, prev, cur protoreflect.EnumDescriptor) {
		var curRanges [][2]int64
		rs := cur.ReservedRanges()
		for i := 0; i < rs.Len(); i++ {
			curRanges = append(curRanges, [2]int64{int64(rs.Get(i)[0]), int64(rs.Get(i)[1])})
		}
		prs := prev.ReservedRanges()
		for i := 0; i < prs.Len(); i++ {
			s, e := int64(prs.Get(i)[0]), int64(prs.Get(i)[1])
			if !rangesCover(curRanges, s, e) {
				r.add(cur, prev, nil, "Previously present reserved range %s on enum %q is missing values; reserve them again.", rangeString(s, e), cur.Name())
			}
		}
		names := prev.ReservedNames()
		for i := 0; i < names.Len(); i++ {
			if !cur.ReservedNames().Has(names.Get(i)) {
				r.add(cur, prev, nil, "Previously present reserved name %q on enum %q was deleted; reserve it again.", names.Get(i), cur.Name())
			}
		}
	},
}

var enumValueNoDeleteUnlessNumberReserved = rule{
	id:      "ENUM_VALUE_NO_DELETE_UNLESS_NUMBER_RESERVED",
	purpose: "An enum value is deleted only with its number reserved, so the number is never reused with another meaning.",
	enum: func(r *report, prev, cur protoreflect.EnumDescriptor) {
		pv, cv := valuesByNumber(prev), valuesByNumber(cur)
		for _, n := range sortedKeys(pv) {
			if _, ok := cv[n]; ok || cur.ReservedRanges().Has(n) {
				continue
			}
			r.add(cur, prev, nil, "Previously present enum value \"%d\" on enum %q was deleted without reserving the number \"%d\"; add `reserved %d;`.", n, cur.Name(), n, n)
		}
	},
}

var enumValueNoDeleteUnlessNameReserved = rule{
	id:      "ENUM_VALUE_NO_DELETE_UNLESS_NAME_RESERVED",
	purpose: "An enum value is deleted only with its name reserved, so its JSON name is never reused.",
	enum: func(r *report, prev, cur protoreflect.EnumDescriptor) {
		pv, cv := valuesByNumber(prev), valuesByNumber(cur)
		for _, n := range sortedKeys(pv) {
			if _, ok := cv[n]; ok {
				continue
			}
			all := true
			for _, v := range pv[n] {
				all = all && cur.ReservedNames().Has(v.Name())
			}
			if !all {
				r.add(cur, prev, nil, "Previously present enum value \"%d\" on enum %q was deleted without reserving the name(s) %s; reserve them.", n, cur.Name(), quotedNames(pv[n]))
			}
		}
	},
}

var enumSameJSONFormat = rule{
	id:      "ENUM_SAME_JSON_FORMAT",
	purpose: "An enum that had a guaranteed JSON form keeps it.",
	enum: func(r *report, prev, cur protoreflect.EnumDescriptor) {
		if jsonFormatAllowed(prev) && !jsonFormatAllowed(cur) {
			r.add(cur, prev, nil, "Enum %q JSON format support changed from ALLOW to LEGACY_BEST_EFFORT.", cur.Name())
		}
	},
}

var enumValueSameName = rule{
	id:      "ENUM_VALUE_SAME_NAME",
	purpose: "An enum number keeps every name it had, since JSON writes enum values by name; adding an alias is allowed.",
	enumValues: func(r *report, prev, cur []protoreflect.EnumValueDescriptor) {
		has := map[protoreflect.Name]bool{}
		for _, v := range cur {
			has[v.Name()] = true
		}
		if !slices.ContainsFunc(prev, func(p protoreflect.EnumValueDescriptor) bool { return !has[p.Name()] }) {
			return
		}
		// an old name is gone: report at each current value of the number, against
		// the old value of the same name when there is one
		for _, c := range cur {
			var old protoreflect.Descriptor
			for _, p := range prev {
				if p.Name() == c.Name() {
					old = p
				}
			}
			r.add(c, old, enumValueNumberPath, "Enum value \"%d\" on enum %q changed name from %s to %s; keep every old name (add the new one as an alias with allow_alias).", c.Number(), c.Parent().Name(), quotedNames(prev), quotedNames(cur))
		}
	},
}

func quotedNames(vs []protoreflect.EnumValueDescriptor) string {
	names := make([]string, 0, len(vs))
	for _, v := range vs {
		names = append(names, fmt.Sprintf("%q", v.Name()))
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// rangesCover reports whether the inclusive ranges cover every number in [s, e].
func rangesCover(ranges [][2]int64, s, e int64) bool {
	sort.Slice(ranges, func(i, j int) bool { return ranges[i][0] < ranges[j][0] })
	next := s
	for _, r := range ranges {
		if r[0] > next {
			break
		}
		if r[1] >= next {
			next = r[1] + 1
		}
		if next > e {
			return true
		}
	}
	return next > e
}

func rangeString(s, e int64) string {
	if s == e {
		return fmt.Sprintf("\"%d\"", s)
	}
	return fmt.Sprintf("\"%d to %d\"", s, e)
}
