package cli

import (
	"runtime/debug"
	"testing"
)

// TestVersion: --version names the module version and the commit the build recorded,
// and says why when it recorded none; init's workflow installs a release or a
// pseudo-version, never a build with uncommitted changes.
func TestVersion(t *testing.T) {
	defer func(f func() (*debug.BuildInfo, bool)) { readBuildInfo = f }(readBuildInfo)
	vcs := []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: "93876e02f8731b8e5494fab9fcaada97483476de"},
		{Key: "vcs.time", Value: "2026-12-01T21:28:11Z"}, {Key: "vcs.modified", Value: "false"}}
	for _, c := range []struct {
		name     string
		bi       *debug.BuildInfo
		want     string
		workflow string
	}{
		{"go install at a release", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v1.2.0"}},
			"contractbot v1.2.0 (commit not recorded (installed as a module: the version names it), go1.26.8)\n", "v1.2.0"},
		{"a build from a checkout", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v0.0.0-20261201212811-93876e02f873"}, Settings: vcs},
			"contractbot v0.0.0-20261201212811-93876e02f873 (commit 93876e02f8731b8e5494fab9fcaada97483476de, 2026-12-01T21:28:11Z, go1.26.8)\n",
			"v0.0.0-20261201212811-93876e02f873"},
		{"uncommitted changes", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v0.0.0-20261201212811-93876e02f873+dirty"},
			Settings: append(vcs[:3:3], debug.BuildSetting{Key: "vcs.modified", Value: "true"})},
			"contractbot v0.0.0-20261201212811-93876e02f873+dirty (commit 93876e02f8731b8e5494fab9fcaada97483476de, 2026-12-01T21:28:11Z, with uncommitted changes, go1.26.8)\n",
			"latest"},
		{"-buildvcs=false", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}},
			"contractbot (devel) (commit not recorded (built with -buildvcs=false or outside a Git checkout), go1.26.8)\n", "latest"},
	} {
		t.Run(c.name, func(t *testing.T) {
			readBuildInfo = func() (*debug.BuildInfo, bool) { return c.bi, true }
			out, errOut, code := runCLI(t, "--version")
			if code != 0 || out != c.want {
				t.Errorf("contractbot --version: exit %d\n got %q\nwant %q%s", code, out, c.want, errOut)
			}
			if got := moduleVersion(); got != c.workflow {
				t.Errorf("init's workflow installs %q, want %q", got, c.workflow)
			}
		})
	}
}
