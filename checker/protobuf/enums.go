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
		reservedNoDelete(r, prev, cur, "enum", inclusiveRanges(prev.ReservedRanges(), 0), inclusiveRanges(cur.ReservedRanges(), 0),
			prev.ReservedNames(), cur.ReservedNames())
	},
}

var enumValueNoDeleteUnlessNumberReserved = rule{
	id:      "ENUM_VALUE_NO_DELETE_UNLESS_NUMBER_RESERVED",
	purpose: "An enum value is deleted only with its number reserved, so the number is never reused with another meaning.",
	enum: func(r *report, prev, cur protoreflect.EnumDescriptor) {
		enumValueNoDelete(r, prev, cur, true)
	},
}

var enumValueNoDeleteUnlessNameReserved = rule{
	id:      "ENUM_VALUE_NO_DELETE_UNLESS_NAME_RESERVED",
	purpose: "An enum value is deleted only with its name reserved, so its JSON name is never reused.",
	enum: func(r *report, prev, cur protoreflect.EnumDescriptor) {
		enumValueNoDelete(r, prev, cur, false)
	},
}

// enumValueNoDelete reports the numbers of prev that cur no longer has, unless
// cur reserves the number (byNumber) or every name the number had.
func enumValueNoDelete(r *report, prev, cur protoreflect.EnumDescriptor, byNumber bool) {
	pv, cv := valuesByNumber(prev), valuesByNumber(cur)
	for _, n := range sortedKeys(pv) {
		if _, ok := cv[n]; ok {
			continue
		}
		if byNumber {
			if !cur.ReservedRanges().Has(n) {
				r.add(cur, prev, nil, "Previously present enum value \"%d\" on enum %q was deleted without reserving the number \"%d\"; add `reserved %d;`.", n, cur.Name(), n, n)
			}
			continue
		}
		if slices.ContainsFunc(pv[n], func(v protoreflect.EnumValueDescriptor) bool { return !cur.ReservedNames().Has(v.Name()) }) {
			r.add(cur, prev, nil, "Previously present enum value \"%d\" on enum %q was deleted without reserving the name(s) %s; reserve them.", n, cur.Name(), quotedNames(pv[n]))
		}
	}
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

// reservedNoDelete reports the reserved ranges (inclusive) and names of prev, an
// enum or message (kind), that cur no longer reserves.
func reservedNoDelete(r *report, prev, cur protoreflect.Descriptor, kind string, prevRanges, curRanges [][2]int64, prevNames, curNames protoreflect.Names) {
	for _, pr := range prevRanges {
		if s, e := pr[0], pr[1]; !rangesCover(curRanges, s, e) {
			r.add(cur, prev, nil, "Previously present reserved range %s on %s %q is missing values; reserve them again.", rangeString(s, e), kind, cur.Name())
		}
	}
	for i := 0; i < prevNames.Len(); i++ {
		if !curNames.Has(prevNames.Get(i)) {
			r.add(cur, prev, nil, "Previously present reserved name %q on %s %q was deleted; reserve it again.", prevNames.Get(i), kind, cur.Name())
		}
	}
}

// inclusiveRanges lists reserved number ranges as [start, end] pairs; a message's
// ranges end exclusively, so for them endOff is 1.
func inclusiveRanges[N protoreflect.EnumNumber | protoreflect.FieldNumber](rs interface {
	Len() int
	Get(i int) [2]N
}, endOff int64) [][2]int64 {
	out := make([][2]int64, 0, rs.Len())
	for i := 0; i < rs.Len(); i++ {
		out = append(out, [2]int64{int64(rs.Get(i)[0]), int64(rs.Get(i)[1]) - endOff})
	}
	return out
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
