package image

import (
	"archive/tar"
	"archive/zip"
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
)

// TestImage builds the image from this checkout, reads it back from its OCI layout,
// unpacks its root and starts its entrypoint there as a container runtime would (no
// engine runs here): chrooted into the root, as the image's user, with its
// environment, working folder and command (the listen address moved to a free
// loopback port). The image's own `init` writes a contract repository into the
// clone's mount point; serve must then answer /healthz, /readyz, the registry and a
// page, write nothing outside its volumes (a read-only root filesystem), and stop on
// SIGTERM.
func TestImage(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("starting the image's root as its user needs chroot, so root (CI runs as root)")
	}
	built, err := Build(Options{Source: "../.."})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := Write(built, filepath.Join(dir, "oci"), filepath.Join(dir, "image.tar"), "contractbot:test"); err != nil {
		t.Fatal(err)
	}
	img := readLayout(t, filepath.Join(dir, "oci"))
	cf, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	c := cf.Config
	for _, l := range []string{"title", "description", "source", "version", "created"} {
		if c.Labels["org.opencontainers.image."+l] == "" {
			t.Errorf("the image has no label org.opencontainers.image.%s: %v", l, c.Labels)
		}
	}
	if rev := c.Labels["org.opencontainers.image.revision"]; rev == "" {
		t.Logf("no org.opencontainers.image.revision: the checkout's commit was not recorded (a linked worktree, or no git)")
	}
	uid, gid := user(t, c.User)
	if uid == 0 || gid == 0 {
		t.Errorf("the image runs as %q, want a non-root user and group", c.User)
	}

	root := filepath.Join(dir, "root")
	unpack(t, img, root)
	static(t, filepath.Join(root, c.Entrypoint[0]))
	zoneinfo(t, root, env(c.Env, "ZONEINFO"))
	if _, err := os.Stat(filepath.Join(root, env(c.Env, "SSL_CERT_FILE"))); err != nil {
		t.Errorf("SSL_CERT_FILE: %v", err)
	}
	before := listing(t, root)

	run := func(args ...string) *exec.Cmd {
		cmd := exec.Command(c.Entrypoint[0], args...)
		cmd.Path = c.Entrypoint[0] // resolved inside the chroot
		cmd.Dir = c.WorkingDir
		cmd.Env = c.Env
		cmd.SysProcAttr = &syscall.SysProcAttr{Chroot: root, Credential: &syscall.Credential{Uid: uid, Gid: gid}}
		return cmd
	}
	if out, err := run("--version").CombinedOutput(); err != nil || !strings.HasPrefix(string(out), "contractbot ") {
		t.Fatalf("contractbot --version in the image: %v: %s", err, out)
	} else {
		t.Logf("%s", out)
	}
	if out, err := run("init", RepoDir, "--org", "acme").CombinedOutput(); err != nil {
		t.Fatalf("contractbot init %s in the image: %v: %s", RepoDir, err, out)
	}
	git := exec.Command("sh", "-c", `git -c safe.directory='*' add -A && git -c safe.directory='*' -c user.name=ci -c user.email=ci@example.com commit -qm init`)
	git.Dir = filepath.Join(root, RepoDir)
	if out, err := git.CombinedOutput(); err != nil {
		t.Fatalf("commit the new repository: %v: %s", err, out)
	}

	addr := freePort(t)
	args := append([]string(nil), c.Cmd...)
	for i, a := range args {
		if a == "--addr" {
			args[i+1] = addr
		}
	}
	serve := run(args...)
	var logs strings.Builder
	serve.Stdout, serve.Stderr = &logs, &logs
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- serve.Wait() }()
	defer func() {
		_ = serve.Process.Kill()
		if t.Failed() {
			t.Logf("serve's log:\n%s", logs.String())
		}
	}()
	base := "http://" + addr
	waitFor(t, base+"/healthz", exited)
	waitFor(t, base+"/readyz", exited)
	for _, p := range []struct{ path, want string }{
		{"/registry/subjects", `["orders.order-created-value"]`},
		{"/subjects", "orders.order-created-value"},
		{"/calendar.ics", "BEGIN:VCALENDAR"},
	} {
		code, body := get(t, base+p.path)
		if code != http.StatusOK || !strings.Contains(body, p.want) {
			t.Errorf("GET %s: %d, want %q in:\n%.500s", p.path, code, p.want, body)
		}
	}
	if err := serve.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("serve after SIGTERM: %v", err)
		}
	case <-time.After(60 * time.Second):
		t.Errorf("serve did not stop within 60 s of SIGTERM")
	}

	// Read-only root: serve wrote only into its volumes (the cache and /tmp) and the
	// clone's mount point (init's files, the commit).
	for p, mode := range listing(t, root) {
		if m, ok := before[p]; ok && m == mode {
			continue
		}
		if !strings.HasPrefix(p, CacheDir+"/") && !strings.HasPrefix(p, "/tmp/") && !strings.HasPrefix(p, RepoDir+"/") {
			t.Errorf("the image's processes wrote %s outside its volumes: a read-only root filesystem would refuse it", p)
		}
	}
	if entries, _ := os.ReadDir(filepath.Join(root, CacheDir)); len(entries) == 0 {
		t.Errorf("serve kept nothing in %s: is --cache-dir set?", CacheDir)
	}
}

func readLayout(t *testing.T, dir string) v1.Image {
	t.Helper()
	p, err := layout.FromPath(dir)
	if err != nil {
		t.Fatal(err)
	}
	idx, err := p.ImageIndex()
	if err != nil {
		t.Fatal(err)
	}
	m, err := idx.IndexManifest()
	if err != nil || len(m.Manifests) != 1 {
		t.Fatalf("the layout's index: %v, %d manifests", err, len(m.Manifests))
	}
	img, err := idx.Image(m.Manifests[0].Digest)
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// unpack writes the image's filesystem under root with the owners and modes of its
// layers, as a runtime does.
func unpack(t *testing.T, img v1.Image, root string) {
	t.Helper()
	rc := mutate.Extract(img)
	defer rc.Close()
	tr := tar.NewReader(rc)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(root, filepath.FromSlash(h.Name))
		switch h.Typeflag {
		case tar.TypeDir:
			err = os.MkdirAll(p, 0o755)
		case tar.TypeReg:
			var f *os.File
			if f, err = os.OpenFile(p, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600); err == nil {
				_, err = io.Copy(f, tr)
				err = errors.Join(err, f.Close())
			}
		default:
			t.Fatalf("%s: a %c entry; the image holds folders and files only", h.Name, h.Typeflag)
		}
		if err == nil {
			err = os.Chown(p, h.Uid, h.Gid)
		}
		if err == nil {
			err = os.Chmod(p, fs.FileMode(h.Mode)&fs.ModePerm|modeBits(h.Mode))
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

func modeBits(m int64) fs.FileMode {
	var out fs.FileMode
	if m&0o1000 != 0 {
		out |= fs.ModeSticky
	}
	return out
}

// static: the binary needs no dynamic loader and no shared library.
func static(t *testing.T, path string) {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			t.Errorf("%s asks for a dynamic loader: build it with CGO_ENABLED=0", path)
		}
	}
	if libs, _ := f.ImportedLibraries(); len(libs) > 0 {
		t.Errorf("%s needs shared libraries %v", path, libs)
	}
}

func zoneinfo(t *testing.T, root, path string) {
	t.Helper()
	z, err := zip.OpenReader(filepath.Join(root, path))
	if err != nil {
		t.Fatalf("ZONEINFO %s: %v", path, err)
	}
	defer z.Close()
	for _, f := range z.File {
		if f.Name == "Europe/Berlin" {
			return
		}
	}
	t.Errorf("ZONEINFO %s has no Europe/Berlin", path)
}

func user(t *testing.T, s string) (uint32, uint32) {
	t.Helper()
	u, g, ok := strings.Cut(s, ":")
	uid, err1 := strconv.ParseUint(u, 10, 32)
	gid, err2 := strconv.ParseUint(g, 10, 32)
	if !ok || err1 != nil || err2 != nil {
		t.Fatalf("the image's user %q is not UID:GID (Kubernetes' runAsNonRoot needs numbers)", s)
	}
	return uint32(uid), uint32(gid)
}

func env(list []string, key string) string {
	for _, kv := range list {
		if k, v, _ := strings.Cut(kv, "="); k == key {
			return v
		}
	}
	return ""
}

// listing maps every path under root (as the image sees it) to its mode and size.
func listing(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		size := info.Size()
		if d.IsDir() {
			size = 0
		}
		out["/"+filepath.ToSlash(strings.TrimPrefix(p, root+string(filepath.Separator)))] = fmt.Sprint(info.Mode(), size)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func freePort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// waitFor polls url until it answers 200, failing if the process exits first or two
// minutes pass (indexing is in the background; the machine may be loaded).
func waitFor(t *testing.T, url string, exited chan error) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		code, body := get(t, url)
		if code == http.StatusOK {
			return
		}
		select {
		case err := <-exited:
			t.Fatalf("serve exited before %s answered 200: %v", url, err)
		case <-time.After(200 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("GET %s: %d %s after two minutes", url, code, body)
		}
	}
}

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	c := http.Client{Timeout: 10 * time.Second}
	resp, err := c.Get(url)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return resp.StatusCode, string(b)
}
