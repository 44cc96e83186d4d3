package verdict

import (
	"testing"
)

// The files the scenarios change, relative to the repository root.
const (
	orderCreatedSchema   = "contracts/orders/order-created/order_created.avsc"
	orderCreatedContract = "contracts/orders/order-created/contract.yaml"
	gmvSchema            = "contracts/dws/gmv-1min/gmv_1min.avsc"
	userProfileContract  = "contracts/users/user-profile/contract.yaml"
	userProfileSchema    = "contracts/users/user-profile/user_profile.avsc"
	crmSyncConsumer      = "contracts/users/user-profile/consumers/crm-sync.yaml"
)

// The amount field of order_created.avsc and its metadata in contract.yaml.
const (
	amountField = `    {
      "name": "amount",
      "type": "long",
      "doc": "Order total after discounts and before shipping, in cents (minor units of ` + "`currency`" + `)."
    },
`
	amountMeta = `  amount:
    doc: order total after discounts, before shipping
    unit: cents
`
)

// addOptionalField adds gift_message (nullable, default null) after coupon_code.
func addOptionalField(r *scenarioRepo) {
	r.replace(orderCreatedSchema, `      "doc": "Coupon redeemed on the order, null when none."
    },
`, `      "doc": "Coupon redeemed on the order, null when none."
    },
    {
      "name": "gift_message",
      "type": ["null", "string"],
      "default": null,
      "doc": "Message printed on the gift card, null when the order is not a gift."
    },
`)
}

// promoteOrderCount promotes dws.gmv-1min-value's order_count from int to long.
func promoteOrderCount(r *scenarioRepo) {
	r.replace(gmvSchema, `{"name": "order_count", "type": "int",`, `{"name": "order_count", "type": "long",`)
}

// removeAmount removes amount from orders.order-created-value and its metadata.
func removeAmount(r *scenarioRepo) {
	r.replace(orderCreatedSchema, amountField, "")
	r.replace(orderCreatedContract, amountMeta, "")
}

// renameUserID renames user_id to buyer_id, keeping user_id as an alias.
func renameUserID(r *scenarioRepo) {
	r.replace(orderCreatedSchema, `      "name": "user_id",
      "type": "long",`, `      "name": "buyer_id",
      "aliases": ["user_id"],
      "type": "long",`)
	r.replace(orderCreatedContract, "  user_id:\n    pii: true\n", "  buyer_id:\n    pii: true\n")
}

// loosenUserProfile lowers users.user-profile-value from FULL_TRANSITIVE to NONE.
func loosenUserProfile(r *scenarioRepo) {
	r.replace(userProfileContract, "compatibility: FULL_TRANSITIVE", "compatibility: NONE")
}

// deleteOrderDetail deletes the folder of dw.order-detail-value, which dwd-order-detail
// produces and two consumers read.
func deleteOrderDetail(r *scenarioRepo) {
	r.remove("contracts/dw/order-detail")
}

// breakCrmSync leaves a flow sequence of crm-sync.yaml unclosed, next to the
// order_count promotion, which must still be evaluated.
func breakCrmSync(r *scenarioRepo) {
	promoteOrderCount(r)
	r.replace(crmSyncConsumer, "marketing_opt_in, updated_at]", "marketing_opt_in, updated_at")
}

// removeEmail removes email (no default) from users.user-profile-value, which is
// FULL_TRANSITIVE: the registry refuses it, crm-sync reads it, and no calendar entry
// names the subject, so the verdict suggests one.
func removeEmail(r *scenarioRepo) {
	r.write(userProfileSchema, removeField(r.t, r.read(userProfileSchema), "email"))
	r.replace(userProfileContract, "  email:\n    pii: true\n    doc: verified login e-mail\n", "")
}

// addSubjectAndMove adds a new subject, orders.order-cancelled-value, and moves the
// folder of inventory.stock-level-value (name, schema and level unchanged).
func addSubjectAndMove(r *scenarioRepo) {
	r.write("contracts/orders/order-cancelled/contract.yaml", `subject: orders.order-cancelled-value
format: avro
schema: order_cancelled.avsc
compatibility: BACKWARD_TRANSITIVE
owner: orders
tier: standard
topic: ods_order_cancelled
`)
	r.write("contracts/orders/order-cancelled/order_cancelled.avsc", `{
  "type": "record",
  "name": "OrderCancelled",
  "namespace": "acme.orders.v1",
  "fields": [
    {"name": "order_id", "type": "string", "doc": "Order number."},
    {"name": "reason", "type": "string", "doc": "Why the order was cancelled."}
  ]
}
`)
	for _, f := range []string{"contract.yaml", "stock_level.avsc", "consumers/order-availability.yaml"} {
		r.write("contracts/inventory/stock-levels/"+f, r.read("contracts/inventory/stock-level/"+f))
	}
	r.remove("contracts/inventory/stock-level")
}

// scenario is one pull request over the example tree.
type scenario struct {
	name   string
	change func(*scenarioRepo)
	// adjust changes the evaluation input (reviews, clock, prior state).
	adjust func(*testing.T, *scenarioRepo, *Input)
}

var scenarios = []scenario{
	{name: "a-add-optional-field", change: addOptionalField},
	{name: "b-promote-int-long", change: promoteOrderCount},
	{name: "c-remove-field-two-hops", change: removeAmount},
	{name: "d-rename-with-alias", change: renameUserID},
	{name: "e-loosen-full-to-none", change: loosenUserProfile},
	{name: "f-delete-subject", change: deleteOrderDetail},
	{name: "g-broken-yaml", change: breakCrmSync},
	{name: "k-registry-fails-no-calendar-entry", change: removeEmail},
	{name: "l-new-subject-and-move", change: addSubjectAndMove},
	{name: "m-remove-unread-field", change: func(r *scenarioRepo) { removeSource(r, "", "") }},
	{name: "n-json-rename-userid", change: renameUserid},
	{name: "o-json-add-optional-open", change: addAppVersion},
	{name: "p-json-add-required", change: addRequiredChannel},
	{name: "q-json-narrow-enum", change: narrowEventType},
}

// run builds the scenario's history and evaluates HEAD~1 -> HEAD.
func (s scenario) run(t *testing.T) *Report {
	t.Helper()
	r := newScenarioRepo(t)
	s.change(r)
	r.commit(s.name)
	in := r.input()
	if s.adjust != nil {
		s.adjust(t, r, &in)
	}
	return Assess(in)
}

// goldenOptions link findings to a fixed repository and commit.
var goldenOptions = MarkdownOptions{RepoURL: "https://github.com/acme/contracts", HeadSHA: "0123456789abcdef0123456789abcdef01234567"}

// writeGoldens renders a report in every format and compares with the golden files
// testdata/scenarios/<name>.{md,txt,json,github}.
func writeGoldens(t *testing.T, name string, r *Report) {
	t.Helper()
	golden(t, "scenarios/"+name+".md", []byte(Markdown(r, goldenOptions)))
	golden(t, "scenarios/"+name+".txt", []byte(Text(r)))
	js, err := JSON(r)
	must(t, err)
	golden(t, "scenarios/"+name+".json", js)
	golden(t, "scenarios/"+name+".github", []byte(GitHubActions(r)))
}

func TestScenarioGoldens(t *testing.T) {
	for _, s := range scenarios {
		t.Run(s.name, func(t *testing.T) {
			writeGoldens(t, s.name, s.run(t))
		})
	}
}
