// Package image builds contractbot's OCI image without a container engine and without
// pulling a base image: one layer holds the static binary, the CA certificates, the
// time-zone database and the files a non-root user needs; the config runs `serve` as
// that user, with nothing written outside its volumes (a read-only root filesystem).
package image

import (
	"archive/tar"
	"bytes"
	"debug/buildinfo"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// The image's paths and user. The chart (deploy/helm/contractbot) mounts volumes at
// RepoDir, CacheDir and /tmp and runs as UID.
const (
	Binary   = "/usr/local/bin/contractbot"
	CACerts  = "/etc/ssl/certs/ca-certificates.crt"
	ZoneInfo = "/usr/share/zoneinfo.zip"
	Home     = "/home/nonroot"
	RepoDir  = "/repo"
	CacheDir = "/var/cache/contractbot"
	UID      = 65532
	Port     = 8080
)

// Options say what goes into the image.
type Options struct {
	// Source is the contractbot module's folder (a Git checkout: the build records
	// its commit, which --version and the image's labels name).
	Source string
	// Arch is the GOARCH of the binary (default: this machine's).
	Arch string
	// CACerts is the PEM bundle of CA certificates (default: Debian's, from the
	// ca-certificates package).
	CACerts string
}

// Build compiles contractbot (CGO_ENABLED=0, a static binary) and assembles the image.
func Build(o Options) (v1.Image, error) {
	if o.Arch == "" {
		o.Arch = runtime.GOARCH
	}
	if o.CACerts == "" {
		o.CACerts = "/etc/ssl/certs/ca-certificates.crt"
	}
	tmp, err := os.MkdirTemp("", "contractbot-image-")
	if err != nil {
		return nil, err
	}
	defer func() { _ = os.RemoveAll(tmp) }()
	bin := filepath.Join(tmp, "contractbot")
	cmd := exec.Command("go", "build", "-buildvcs=true", "-ldflags=-s -w", "-o", bin, "./cmd/contractbot")
	cmd.Dir = o.Source
	// GOWORK=off: the binary is built with the product's own go.mod, as `go install` builds it.
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH="+o.Arch, "GOFLAGS=", "GOWORK=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("build contractbot in %s: %w\n%s", o.Source, err, out)
	}
	info, err := buildinfo.ReadFile(bin)
	if err != nil {
		return nil, fmt.Errorf("read the build's record: %w", err)
	}
	settings := map[string]string{}
	for _, s := range info.Settings {
		settings[s.Key] = s.Value
	}
	// Every file carries the commit's time, so the same commit makes the same layer.
	mtime := time.Unix(0, 0).UTC()
	if t, err := time.Parse(time.RFC3339, settings["vcs.time"]); err == nil {
		mtime = t.UTC()
	}
	binary, err := os.ReadFile(bin)
	if err != nil {
		return nil, err
	}
	certs, err := os.ReadFile(o.CACerts)
	if err != nil {
		return nil, fmt.Errorf("the CA certificates (install Debian's ca-certificates, or name a PEM bundle): %w", err)
	}
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		return nil, fmt.Errorf("go env GOROOT: %w", err)
	}
	zoneinfo, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(goroot)), "lib", "time", "zoneinfo.zip"))
	if err != nil {
		return nil, fmt.Errorf("the time-zone database of the Go toolchain: %w", err)
	}
	root, err := rootLayer(mtime, binary, certs, zoneinfo)
	if err != nil {
		return nil, err
	}
	img, err := mutate.AppendLayers(mutate.MediaType(empty.Image, types.OCIManifestSchema1), root)
	if err != nil {
		return nil, err
	}
	img = mutate.ConfigMediaType(img, types.OCIConfigJSON)
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cf = cf.DeepCopy()
	cf.Architecture, cf.OS = o.Arch, "linux"
	cf.Created = v1.Time{Time: mtime}
	cf.Config = config(info.Main.Version, settings["vcs.revision"], mtime)
	return mutate.ConfigFile(img, cf)
}

// config runs `serve` on the mounted clone as the non-root user; HOME, the cache and
// the certificates' and zones' paths are set so nothing looks for a writable root.
func config(version, revision string, created time.Time) v1.Config {
	labels := map[string]string{
		"org.opencontainers.image.title":         "contractbot",
		"org.opencontainers.image.description":   "Schema contracts as code: lint, compatibility, consumer impact and a pull-request bot",
		"org.opencontainers.image.source":        "https://github.com/contractbot/contractbot",
		"org.opencontainers.image.url":           "https://github.com/contractbot/contractbot",
		"org.opencontainers.image.documentation": "https://github.com/contractbot/contractbot/blob/main/docs/operations.md",
		"org.opencontainers.image.version":       version,
		"org.opencontainers.image.created":       created.Format(time.RFC3339),
	}
	if revision != "" {
		labels["org.opencontainers.image.revision"] = revision
	}
	return v1.Config{
		User:       fmt.Sprintf("%d:%d", UID, UID),
		WorkingDir: Home,
		Env: []string{
			"PATH=/usr/local/bin",
			"HOME=" + Home,
			"SSL_CERT_FILE=" + CACerts,
			"ZONEINFO=" + ZoneInfo,
			"XDG_CACHE_HOME=/var/cache",
		},
		Entrypoint:   []string{Binary},
		Cmd:          []string{"serve", "--addr", fmt.Sprintf("0.0.0.0:%d", Port), "--repo", RepoDir, "--cache-dir", CacheDir},
		ExposedPorts: map[string]struct{}{fmt.Sprintf("%d/tcp", Port): {}},
		Volumes:      map[string]struct{}{CacheDir: {}, "/tmp": {}},
		Labels:       labels,
		StopSignal:   "SIGTERM",
	}
}

// rootLayer is the image's one layer: root owns everything but the user's home, the
// cache folder and the clone's mount point.
func rootLayer(mtime time.Time, binary, certs, zoneinfo []byte) (v1.Layer, error) {
	var b bytes.Buffer
	tw := tar.NewWriter(&b)
	dir := func(name string, mode int64, uid int) error {
		return tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: name + "/", Mode: mode, Uid: uid, Gid: uid, ModTime: mtime, Format: tar.FormatPAX})
	}
	file := func(name string, mode int64, data []byte) error {
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: mode, Size: int64(len(data)), ModTime: mtime, Format: tar.FormatPAX}); err != nil {
			return err
		}
		_, err := tw.Write(data)
		return err
	}
	steps := []func() error{
		func() error { return dir("etc", 0o755, 0) },
		func() error { return dir("etc/ssl", 0o755, 0) },
		func() error { return dir("etc/ssl/certs", 0o755, 0) },
		func() error { return file(strings.TrimPrefix(CACerts, "/"), 0o644, certs) },
		func() error {
			return file("etc/passwd", 0o644, fmt.Appendf(nil, "root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:%d:%d:nonroot:%s:/sbin/nologin\n", UID, UID, Home))
		},
		func() error { return file("etc/group", 0o644, fmt.Appendf(nil, "root:x:0:\nnonroot:x:%d:\n", UID)) },
		func() error { return dir("home", 0o755, 0) },
		func() error { return dir(strings.TrimPrefix(Home, "/"), 0o755, UID) },
		func() error { return dir(strings.TrimPrefix(RepoDir, "/"), 0o755, UID) },
		func() error { return dir("tmp", 0o1777, 0) },
		func() error { return dir("usr", 0o755, 0) },
		func() error { return dir("usr/local", 0o755, 0) },
		func() error { return dir("usr/local/bin", 0o755, 0) },
		func() error { return file(strings.TrimPrefix(Binary, "/"), 0o755, binary) },
		func() error { return dir("usr/share", 0o755, 0) },
		func() error { return file(strings.TrimPrefix(ZoneInfo, "/"), 0o644, zoneinfo) },
		func() error { return dir("var", 0o755, 0) },
		func() error { return dir("var/cache", 0o755, 0) },
		func() error { return dir(strings.TrimPrefix(CacheDir, "/"), 0o755, UID) },
		tw.Close,
	}
	for _, s := range steps {
		if err := s(); err != nil {
			return nil, err
		}
	}
	data := b.Bytes()
	return tarball.LayerFromOpener(func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil },
		tarball.WithMediaType(types.OCILayer))
}

// Write puts the image in an OCI image layout folder (what skopeo, crane and podman
// read: `skopeo copy oci:DIR docker://REGISTRY/contractbot:TAG`) and, when tarPath is
// not empty, a tarball `docker load` takes, tagged ref.
func Write(img v1.Image, dir, tarPath, ref string) error {
	p, err := layout.Write(dir, empty.Index)
	if err != nil {
		return err
	}
	if err := p.AppendImage(img, layout.WithAnnotations(map[string]string{"org.opencontainers.image.ref.name": ref})); err != nil {
		return err
	}
	if tarPath == "" {
		return nil
	}
	tag, err := name.NewTag(ref)
	if err != nil {
		return fmt.Errorf("image name %q: %w", ref, err)
	}
	return tarball.WriteToFile(tarPath, tag, img)
}
