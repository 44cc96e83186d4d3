package sample

import (
	"net"
	"net/mail"
	"net/url"
	"regexp"
	"strings"

	"cel.dev/cel-go/cel"
	"cel.dev/cel-go/common/types"
	"cel.dev/cel-go/common/types/ref"
	"cel.dev/cel-go/ext"

	"github.com/contractbot/contractbot/internal/contract"
)

// ruleCost bounds the work of one rule on one message (cel-go's cost units): a rule
// over a hostile message's huge list stops there, as a failure of the rule.
const ruleCost = 1_000_000

// ruleSet holds the CEL CONDITION rules of a subject, compiled for evaluation.
type ruleSet struct {
	rules []*rule
}

type rule struct {
	r            contract.Rule
	guard, check cel.Program
}

// compileRules compiles the subject's domain CONDITION rules of type CEL (CEL_FIELD
// rules run per field and tag in Confluent's executors; sample does not run them).
// The load type-checked them against the schema; here `message` is dynamic, since the
// decoded values are plain maps. A rule that does not compile is left out: lint
// reports it.
func compileRules(s *contract.Subject) *ruleSet {
	rs := &ruleSet{}
	var env *cel.Env
	for _, r := range s.Rules {
		if r.Kind != "CONDITION" || r.Type != "CEL" || r.Disabled || r.Migration() {
			continue
		}
		if env == nil {
			var err error
			if env, err = ruleEnv(); err != nil {
				return rs
			}
		}
		guard, expr := "", r.Expr
		if i := strings.IndexByte(expr, ';'); i >= 0 && r.Params["cel.ignore.guard.separator"] != "true" {
			guard, expr = expr[:i], expr[i+1:]
		}
		cr := &rule{r: r}
		var ok bool
		if cr.check, ok = program(env, expr); !ok {
			continue
		}
		if strings.TrimSpace(guard) != "" {
			if cr.guard, ok = program(env, guard); !ok {
				continue
			}
		}
		rs.rules = append(rs.rules, cr)
	}
	return rs
}

func program(env *cel.Env, expr string) (cel.Program, bool) {
	a, iss := env.Compile(expr)
	if iss != nil && iss.Err() != nil {
		return nil, false
	}
	prg, err := env.Program(a, cel.CostLimit(ruleCost))
	return prg, err == nil
}

// check evaluates each rule on a decoded value; a rule that is false, or fails, is a
// rule-violation at the first field it reads.
func (rs *ruleSet) check(val any, p *problems) {
	if rs == nil || len(rs.rules) == 0 || val == nil {
		return
	}
	act := map[string]any{"message": val}
	for _, r := range rs.rules {
		if p.about(r.r.Fields) {
			continue // a field the rule reads is already reported missing or mistyped
		}
		if r.guard != nil {
			if out, _, err := r.guard.Eval(act); err != nil || out != types.True {
				continue
			}
		}
		field := ""
		if len(r.r.Fields) > 0 {
			field = r.r.Fields[0]
		}
		out, _, err := r.check.Eval(act)
		switch {
		case err != nil:
			p.add(RuleViolation, field, "rule %q (%s) fails on the message: %v.", r.r.Name, oneLine(r.r.Expr), err)
		case out != types.True:
			p.add(RuleViolation, field, "rule %q (%s) is false for the message.", r.r.Name, oneLine(r.r.Expr))
		}
	}
}

// oneLine shortens an expression for a message.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 80 {
		s = s[:77] + "..."
	}
	return s
}

// ruleEnv is the environment of CEL rules as Confluent's executors run them, with the
// string checks the contract's rules may call.
func ruleEnv() (*cel.Env, error) {
	opts := []cel.EnvOption{cel.CrossTypeNumericComparisons(true), ext.Strings(), cel.Variable("message", cel.DynType)}
	for name, fn := range stringChecks {
		opts = append(opts, cel.Function(name, cel.MemberOverload("string_"+name, []*cel.Type{cel.StringType}, cel.BoolType,
			cel.UnaryBinding(func(v ref.Val) ref.Val {
				s, ok := v.Value().(string)
				return types.Bool(ok && fn(s))
			}))))
	}
	return cel.NewEnv(opts...)
}

var (
	reUUID     = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)
	reHostname = regexp.MustCompile(`^([a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?\.)*[a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?$`)
)

// stringChecks are the functions Confluent's CEL executors add for strings.
var stringChecks = map[string]func(string) bool{
	"isEmail": func(s string) bool { a, err := mail.ParseAddress(s); return err == nil && a.Address == s },
	"isHostname": func(s string) bool {
		return len(s) <= 253 && reHostname.MatchString(s)
	},
	"isIpv4": func(s string) bool {
		ip := net.ParseIP(s)
		return ip != nil && ip.To4() != nil && strings.Contains(s, ".")
	},
	"isIpv6":   func(s string) bool { ip := net.ParseIP(s); return ip != nil && strings.Contains(s, ":") },
	"isUri":    func(s string) bool { u, err := url.Parse(s); return err == nil && u.Scheme != "" },
	"isUriRef": func(s string) bool { _, err := url.Parse(s); return err == nil },
	"isUuid":   reUUID.MatchString,
}
