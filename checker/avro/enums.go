package avro

import (
	"fmt"
	"sort"
	"strings"

	"github.com/contractbot/contractbot/checker"
	"github.com/hamba/avro/v2"
)

// checkEnumSymbols: every symbol the writer's enum can hold is in the reader's enum,
// unless the reader's enum has a default symbol to read unknown ones as.
func checkEnumSymbols(_ *walker, p pair) []issue {
	re, we := p.r.s.(*avro.EnumSchema), p.w.s.(*avro.EnumSchema)
	have := make(map[string]bool, len(re.Symbols()))
	for _, s := range re.Symbols() {
		have[s] = true
	}
	var missing []string
	for _, s := range we.Symbols() {
		if !have[s] {
			missing = append(missing, s)
		}
	}
	if len(missing) == 0 || re.HasDefault() {
		return nil
	}
	sort.Strings(missing)
	return []issue{{
		rule: ruleMissingEnumSymbols, loc: p.loc + "/symbols", detail: "[" + strings.Join(missing, ", ") + "]",
		r: p.r, w: p.w, suffix: "/symbols", symbols: missing,
	}}
}

func messageEnumSymbols(is *issue, dir checker.Direction, against int) string {
	name := is.r.s.(*avro.EnumSchema).FullName()
	list := strings.Join(is.symbols, ", ")
	if dir == checker.NewReadsOld {
		return fmt.Sprintf("enum %q at %s no longer has symbol(s) %s, which data written with version %d can hold. Keep them, or give the enum a \"default\" symbol to read unknown ones as.",
			name, subject(is.r.path), list, against)
	}
	return fmt.Sprintf("enum %q at %s gained symbol(s) %s, which consumers on version %d cannot read (their enum has no \"default\"). Remove them, or write them only after those consumers upgrade to a version whose enum has a default.",
		name, subject(is.w.path), list, against)
}
