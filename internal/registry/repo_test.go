package registry

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	gitobject "github.com/go-git/go-git/v5/plumbing/object"
)

// testRepo is the example tree in a temporary Git repository, with two more commits:
// commit 2 adds an optional field (gift_note) to orders.order-created-value (version 2) and a
// field to common.money-value (version 2); commit 3 adds a field to
// payments.payment-authorized-value (version 2, referencing money version 2) and
// changes dws.gmv-1min-value's level alone.
func testRepo(t testing.TB) (string, *git.Repository) {
	t.Helper()
	dir := t.TempDir()
	repo, err := git.PlainInit(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, sub := range []string{"contracts", "calendar"} {
		copyDir(t, filepath.Join("../..", sub), filepath.Join(dir, sub))
	}
	commitAll(t, repo, "example tree", 0)
	edit(t, filepath.Join(dir, "contracts/orders/order-created/order_created.avsc"),
		`    {
      "name": "event_time",`,
		`    {
      "name": "gift_note",
      "type": ["null", "string"],
      "default": null,
      "doc": "A note for the gift wrap, if any."
    },
    {
      "name": "event_time",`)
	edit(t, filepath.Join(dir, "contracts/common/money/money.proto"), "  int32 nanos = 3;\n", "  int32 nanos = 3;\n  // How the amount is shown to people, e.g. \"12.34 CNY\".\n  string display = 4;\n")
	commitAll(t, repo, "order-created: gift_note; money: display", 1)
	edit(t, filepath.Join(dir, "contracts/payments/payment-authorized/payment_authorized.proto"), "  string country_code = 2;\n", "  string country_code = 2;\n  // IBAN of the payer's account.\n  string iban = 3;\n")
	edit(t, filepath.Join(dir, "contracts/dws/gmv-1min/contract.yaml"), "compatibility: BACKWARD\n", "compatibility: FULL\n")
	commitAll(t, repo, "payment-authorized: iban; gmv-1min: FULL", 2)
	return dir, repo
}

func copyDir(t testing.TB, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		dst := filepath.Join(to, rel)
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

func commitAll(t testing.TB, repo *git.Repository, msg string, n int) {
	t.Helper()
	wt, err := repo.Worktree()
	if err != nil {
		t.Fatal(err)
	}
	if err := wt.AddWithOptions(&git.AddOptions{All: true}); err != nil {
		t.Fatal(err)
	}
	when := time.Date(2026, 11, 30, 9, n, 0, 0, time.UTC)
	if _, err := wt.Commit(msg, &git.CommitOptions{Author: &gitobject.Signature{Name: "t", Email: "t@example.com", When: when}}); err != nil {
		t.Fatal(err)
	}
}

func edit(t testing.TB, path, old, new string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), old) {
		t.Fatalf("%s does not contain %q", path, old)
	}
	if err := os.WriteFile(path, []byte(strings.Replace(string(data), old, new, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
}
