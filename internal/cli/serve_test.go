package cli

import (
	"strings"
	"testing"
)

func TestServeNeedsCredentials(t *testing.T) {
	t.Setenv("CONTRACTBOT_WEBHOOK_SECRET", "")
	t.Setenv("GITHUB_TOKEN", "")
	_, errOut, code := runCLI(t, "serve", "--addr", "127.0.0.1:0")
	if code != 2 || !strings.Contains(errOut, "CONTRACTBOT_WEBHOOK_SECRET") {
		t.Errorf("exit %d: %q", code, errOut)
	}
	t.Setenv("CONTRACTBOT_WEBHOOK_SECRET", "s")
	_, errOut, code = runCLI(t, "serve", "--addr", "127.0.0.1:0", "--app-id", "1", "--app-key-file", "/nonexistent.pem")
	if code != 2 || !strings.Contains(errOut, "--app-key-file") {
		t.Errorf("missing key file: exit %d: %q", code, errOut)
	}
}
