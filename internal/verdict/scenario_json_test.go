package verdict

import (
	"slices"
	"testing"
)

// The JSON Schema subjects of the example tree.
const (
	appEventSchema      = "contracts/engagement/app-event/app_event.json"
	appEventContract    = "contracts/engagement/app-event/contract.yaml"
	orderSnapshotSchema = "contracts/orders/order-snapshot/order_snapshot.json"
)

// renameUserid renames the clickstream's userid to userId (the producer's camelCase
// clean-up), in the schema and the contract's field metadata; the readers still read
// userid.
func renameUserid(r *scenarioRepo) {
	r.replace(appEventSchema, `"userid": {"type": "string"`, `"userId": {"type": "string"`)
	r.replace(appEventContract, "  userid:\n", "  userId:\n")
}

// addAppVersion adds an optional property to the clickstream's open object, whose
// level is FORWARD_TRANSITIVE (the apps upgrade first).
func addAppVersion(r *scenarioRepo) {
	r.replace(appEventSchema, `    "session_id": {"type": "string"},
`, `    "session_id": {"type": "string"},
    "app_version": {"type": "string", "description": "build of the app that sent the event"},
`)
}

// addRequiredChannel adds a required property without a default to the order
// snapshot, a closed object at BACKWARD.
func addRequiredChannel(r *scenarioRepo) {
	r.replace(orderSnapshotSchema, `    "currency": {"type": "string", "minLength": 3, "maxLength": 3},
`, `    "currency": {"type": "string", "minLength": 3, "maxLength": 3},
    "channel": {"type": "string", "enum": ["app", "web", "mini-program"], "description": "where the order was placed"},
`)
	r.replace(orderSnapshotSchema, `"required": ["order_id", "userId", "status", "amount", "currency", "updated_at"]`,
		`"required": ["order_id", "userId", "status", "amount", "currency", "channel", "updated_at"]`)
}

// narrowEventType drops checkout from the clickstream's event_type, which the funnel
// dashboard charts one by one.
func narrowEventType(r *scenarioRepo) {
	r.replace(appEventSchema, `["page_view", "product_view", "add_to_cart", "checkout", "purchase"]`,
		`["page_view", "product_view", "add_to_cart", "purchase"]`)
}

func TestScenarioJSONRenameUserid(t *testing.T) {
	r := scenarioNamed(t, "n-json-rename-userid").run(t)
	equal(t, "class", r.Class, Breaking)
	s := subjectOf(t, r, "engagement.app-event-value")
	equal(t, "format", s.Format, "json")
	var renamed bool
	for _, c := range s.Changes {
		if c.Kind == "renamed" && c.OldPath == "userid" && c.Path == "userId" && c.Effect == "breaking" {
			renamed = true
		}
	}
	if !renamed {
		t.Errorf("changes %+v lack the rename userid -> userId", s.Changes)
	}
	equal(t, "direct", consumers(s, true), []string{"dwd-app-event", "funnel-dashboard"})
	equal(t, "statuses", statuses(r), map[string]Status{"analytics": Pending, "data-warehouse": Pending})
}

func TestScenarioJSONAddOptionalOpen(t *testing.T) {
	r := scenarioNamed(t, "o-json-add-optional-open").run(t)
	equal(t, "class", r.Class, Safe)
	s := subjectOf(t, r, "engagement.app-event-value")
	equal(t, "compatible", s.Compatible, true)
	equal(t, "findings", len(s.Findings), 0)
	equal(t, "affected", len(s.Affected), 0)
}

func TestScenarioJSONAddRequired(t *testing.T) {
	r := scenarioNamed(t, "p-json-add-required").run(t)
	equal(t, "class", r.Class, Breaking)
	s := subjectOf(t, r, "orders.order-snapshot-value")
	equal(t, "compatible", s.Compatible, false)
	var rules []string
	for _, f := range s.Findings {
		rules = append(rules, f.Rule+" "+f.Path)
		if f.Line < 1 || f.File == "" {
			t.Errorf("finding without a place: %+v", f)
		}
	}
	equal(t, "findings", rules, []string{"REQUIRED_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL #/properties/channel"})
}

func TestScenarioJSONNarrowEnum(t *testing.T) {
	r := scenarioNamed(t, "q-json-narrow-enum").run(t)
	equal(t, "class", r.Class, Breaking)
	s := subjectOf(t, r, "engagement.app-event-value")
	// FORWARD: readers on the old version read new events, whose values they all know,
	// so the registry accepts it; the dashboard that charts checkout does not.
	equal(t, "compatible", s.Compatible, true)
	if !slices.Contains(consumers(s, true), "funnel-dashboard") {
		t.Errorf("direct consumers %v lack funnel-dashboard", consumers(s, true))
	}
	equal(t, "analytics", signOffOf(t, r, "analytics").Status, Pending)
}
