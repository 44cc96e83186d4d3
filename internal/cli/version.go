package cli

import (
	"fmt"
	"runtime/debug"
	"strings"
)

// readBuildInfo is the build's own record (tests replace it).
var readBuildInfo = debug.ReadBuildInfo

// versionLine is what --version prints: the module version and the commit it was
// built from, as the Go toolchain recorded them (go install module@version records
// the version; a build from a checkout records the commit, its time and whether the
// work tree had changes, unless built with -buildvcs=false).
func versionLine() string {
	bi, ok := readBuildInfo()
	if !ok {
		return "contractbot (no build information: not built with module support)"
	}
	v := bi.Main.Version
	if v == "" {
		v = "(devel)"
	}
	settings := map[string]string{}
	for _, s := range bi.Settings {
		settings[s.Key] = s.Value
	}
	var about []string
	if rev := settings["vcs.revision"]; rev != "" {
		about = append(about, "commit "+rev)
		if t := settings["vcs.time"]; t != "" {
			about = append(about, t)
		}
		if settings["vcs.modified"] == "true" {
			about = append(about, "with uncommitted changes")
		}
	} else if strings.HasPrefix(v, "v") {
		about = append(about, "commit not recorded (installed as a module: the version names it)")
	} else {
		about = append(about, "commit not recorded (built with -buildvcs=false or outside a Git checkout)")
	}
	about = append(about, bi.GoVersion)
	return fmt.Sprintf("contractbot %s (%s)", v, strings.Join(about, ", "))
}

// moduleVersion is the version of contractbot the workflow init writes installs: this
// binary's, or "latest" for a development build.
func moduleVersion() string {
	if bi, ok := readBuildInfo(); ok && strings.HasPrefix(bi.Main.Version, "v") && !strings.Contains(bi.Main.Version, "+dirty") {
		return bi.Main.Version
	}
	return "latest"
}
