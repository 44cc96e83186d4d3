package cli

import (
	"fmt"
	"io"
	"log/slog"

	"github.com/spf13/pflag"
)

// logFlags choose what serve logs (--log-level) and how (--log-format).
type logFlags struct{ level, format string }

func (f *logFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.level, "log-level", "info", "the least severe record logged: debug, info, warn or error")
	fs.StringVar(&f.format, "log-format", "json", "the form of the log on stderr: json (one object a line) or text (key=value)")
}

// logger builds the logger the flags name, or says which value is wrong.
func (f logFlags) logger(w io.Writer) (*slog.Logger, error) {
	var level slog.Level
	switch f.level {
	case "debug", "info", "warn", "error":
		if err := level.UnmarshalText([]byte(f.level)); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("--log-level %q: use debug, info, warn or error", f.level)
	}
	opts := &slog.HandlerOptions{Level: level}
	switch f.format {
	case "json":
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	case "text":
		return slog.New(slog.NewTextHandler(w, opts)), nil
	}
	return nil, fmt.Errorf("--log-format %q: use json or text", f.format)
}
