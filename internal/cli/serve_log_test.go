package cli

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

// TestServeLogFlags: --log-level drops what is less severe, --log-format text writes
// key=value, json one object a line; a wrong value is refused before serve starts.
func TestServeLogFlags(t *testing.T) {
	var buf bytes.Buffer
	log, err := logFlags{level: "warn", format: "text"}.logger(&buf)
	if err != nil {
		t.Fatal(err)
	}
	log.Info("dropped")
	log.Warn("kept", "subject", "orders")
	if got := buf.String(); strings.Contains(got, "dropped") || !strings.Contains(got, `level=WARN msg=kept subject=orders`) {
		t.Errorf("warn, text:\n%s", got)
	}
	buf.Reset()
	log, err = logFlags{level: "debug", format: "json"}.logger(&buf)
	if err != nil {
		t.Fatal(err)
	}
	log.Debug("seen")
	if got := buf.String(); !strings.HasPrefix(got, `{"time":`) || !strings.Contains(got, `"level":"DEBUG","msg":"seen"`) {
		t.Errorf("debug, json:\n%s", got)
	}
	for _, c := range []struct{ name, flag, value string }{
		{"serve-log-level", "--log-level", "loud"},
		{"serve-log-format", "--log-format", "xml"},
	} {
		var out, errb bytes.Buffer
		if code := Main([]string{"serve", c.flag, c.value, "--addr", "127.0.0.1:0"}, &out, &errb); code != 2 {
			t.Errorf("%s %s: exit %d, want 2", c.flag, c.value, code)
		}
		goldenFile(t, filepath.Join("testdata", "usage", c.name+".txt"), errb.String())
	}
}
