// Command serveload measures a real `contractbot serve` process on a repository
// against a bare net/http handler answering the same bytes (issue 31):
//
//	go build -o /tmp/contractbot ./cmd/contractbot
//	go run ./cmd/serveload -bin /tmp/contractbot -repo /tmp/s100k
//
// It starts serve with an empty --cache-dir (cold), waits for the registry, stops it,
// then starts it again on the cache that run left (warm) and records, from each
// start, the first 200 of the catalog (/) and /readyz saying ready. Once the warm
// serve is idle (the full tree loaded, the health audit done: its CPU time stops
// growing), it reads GET /registry/subjects/{s}/versions/latest of every subject,
// starts this program again as a bare server (another process, -bare) answering each
// path with the bytes serve answered, and drives both with the same client: -clients
// keep-alive connections looping over the subjects, phases of -seconds, for -rounds
// rounds, bare then serve in odd rounds and serve then bare in even ones (a load that
// rises or falls through a round weighs on both alike; with -bin2, a second build
// served beside the first, each round starts with the next of the three). Per round
// it prints requests per second, mean latency and the server's CPU time per request
// of each, and two ratios, bare over serve: of the latency and of the CPU per
// request. The machine's load moves single rounds a lot, so the summary is the
// median of the per-round ratios with their quartiles and range, next to the ratios
// of the sums. Then serve's RSS and its peak (VmHWM), and the machine's load.
package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/gob"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/pprof"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

func main() {
	bare := flag.String("bare", "", "serve the bodies in `FILE` (written by serveload) on -addr and nothing else")
	addr := flag.String("addr", "127.0.0.1:0", "with -bare: the address to listen on")
	asServe := flag.String("as-serve", "", "with -bare: also send serve's three more headers (this `COMMIT`, nosniff, the body's ETag) and take serve's timeouts")
	var o options
	flag.StringVar(&o.bin, "bin", "contractbot", "the contractbot binary to run")
	flag.StringVar(&o.bin2, "bin2", "", "a second contractbot binary (`FILE`) to serve beside the first, warm on a copy of its cache, and load in the same rounds (compare two builds side by side)")
	flag.StringVar(&o.repo, "repo", "", "the repository serve serves (`DIR`, e.g. made by synthrepo)")
	flag.StringVar(&o.cache, "cache", "", "serve's --cache-dir (`DIR`): when it holds a cache already, the cold start is left out (default: a new one)")
	flag.Func("serve-env", "add `KEY=VALUE` to the warm serves' environment (repeat it for more), e.g. GOGC=50", func(v string) error {
		if !strings.Contains(v, "=") {
			return errors.New("write KEY=VALUE")
		}
		o.env = append(o.env, v)
		return nil
	})
	flag.IntVar(&o.clients, "clients", 64, "concurrent client connections")
	flag.DurationVar(&o.phase, "seconds", time.Second, "length of one phase (one server, one round)")
	flag.IntVar(&o.rounds, "rounds", 24, "rounds of bare and serve (the order alternates)")
	flag.DurationVar(&o.idle, "idle-timeout", 15*time.Minute, "how long to wait for serve to become idle after it is ready")
	flag.DurationVar(&o.settle, "settle", 0, "wait this long more once serve is idle, before the heap profile and the load (serve lets its pages' tree go 2 minutes after the last use)")
	flag.StringVar(&o.pprof, "pprof", "", "pass --pprof-addr `ADDR` to the warm serve and, after the rounds, load each server once more for -profile-seconds and save CPU profiles to -profile (serve's) and beside it (*.bare.pprof, the bare server's); those phases are not in the figures")
	flag.BoolVar(&o.bareAsServe, "bare-as-serve", false, "load a third server in the same rounds: the bare one with serve's headers and timeouts (bare-as-serve; what is left between it and serve is the process, not the request)")
	flag.DurationVar(&o.profileFor, "profile-seconds", 10*time.Second, "with -pprof: the length of the profiled phases")
	flag.StringVar(&o.profile, "profile", "serve.pprof", "where -pprof saves serve's CPU profile")
	flag.Parse()
	if *bare != "" {
		if err := serveBare(*bare, *addr, *asServe); err != nil {
			fmt.Fprintln(os.Stderr, "serveload:", err)
			os.Exit(1)
		}
		return
	}
	if o.repo == "" {
		fmt.Fprintln(os.Stderr, "serveload: name the repository with -repo DIR")
		flag.Usage()
		os.Exit(2)
	}
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "serveload:", err)
		os.Exit(1)
	}
}

type options struct {
	bin, bin2       string
	repo, cache     string
	env             []string
	clients, rounds int
	phase, idle     time.Duration
	settle          time.Duration
	pprof, profile  string
	profileFor      time.Duration
	bareAsServe     bool
}

func run(o options) error {
	work, err := os.MkdirTemp("", "serveload-")
	if err != nil {
		return err
	}
	defer func() { _ = os.RemoveAll(work) }()
	cache := o.cache
	if cache == "" {
		cache = filepath.Join(work, "cache")
	}
	fmt.Printf("load average: %s\n", loadavg())
	if entries, _ := os.ReadDir(cache); len(entries) == 0 {
		cold, err := start(o, o.bin, work, cache, "cold", "")
		if err != nil {
			return err
		}
		fmt.Printf("cold: first page %s, registry ready %s\n", cold.first, cold.ready)
		if err := cold.stop(); err != nil {
			return err
		}
	}
	warm, err := start(o, o.bin, work, cache, "warm", o.pprof)
	if err != nil {
		return err
	}
	defer func() { _ = warm.stop() }()
	fmt.Printf("warm: first page %s (CPU %s), registry ready %s\n", warm.first, warm.firstCPU, warm.ready)
	idle, err := warm.waitIdle(o.idle)
	if err != nil {
		return err
	}
	fmt.Printf("warm: idle %s after start; RSS %s\n", idle, mib(warm.rss("VmRSS")))
	serves := []*proc{warm}
	if o.bin2 != "" {
		// The second serve starts warm too, on a copy of the cache the first left.
		cache2 := filepath.Join(work, "cache2")
		if out, err := exec.Command("cp", "-r", cache, cache2).CombinedOutput(); err != nil {
			return fmt.Errorf("copy the cache for -bin2: %w: %s", err, out)
		}
		warm2, err := start(o, o.bin2, work, cache2, "warm2", "")
		if err != nil {
			return err
		}
		defer func() { _ = warm2.stop() }()
		fmt.Printf("warm2 (%s): first page %s (CPU %s), registry ready %s\n", o.bin2, warm2.first, warm2.firstCPU, warm2.ready)
		if idle, err = warm2.waitIdle(o.idle); err != nil {
			return err
		}
		fmt.Printf("warm2: idle %s after start; RSS %s\n", idle, mib(warm2.rss("VmRSS")))
		serves = append(serves, warm2)
	}
	if o.settle > 0 {
		time.Sleep(o.settle)
		for _, p := range serves {
			fmt.Printf("%s: %s later, RSS %s\n", p.label, o.settle, mib(p.rss("VmRSS")))
		}
	}
	if o.pprof != "" {
		heap := strings.TrimSuffix(o.profile, ".pprof") + ".heap.pprof"
		if err := fetch(fmt.Sprintf("http://%s/debug/pprof/heap?gc=1", o.pprof), heap); err != nil {
			return err
		}
	}

	paths, bodies, err := warm.latest()
	if err != nil {
		return err
	}
	bareURL, bareProc, err := startBare(work, paths, bodies, "")
	if err != nil {
		return err
	}
	defer func() { _ = bareProc.Process.Kill(); _ = bareProc.Wait() }()
	var likeURL string
	var likeProc *exec.Cmd
	if o.bareAsServe {
		resp, err := http.Get(warm.base + "/registry" + paths[0])
		if err != nil {
			return err
		}
		resp.Body.Close()
		if likeURL, likeProc, err = startBare(work, paths, bodies, resp.Header.Get("X-Contractbot-Commit")); err != nil {
			return err
		}
		defer func() { _ = likeProc.Process.Kill(); _ = likeProc.Wait() }()
	}
	size := 0
	for _, b := range bodies {
		size += len(b)
	}
	fmt.Printf("%d subjects, mean body %d bytes; %d clients, %s phases, %d rounds\n", len(paths), size/len(paths), o.clients, o.phase, o.rounds)

	rand.New(rand.NewPCG(1, 2)).Shuffle(len(paths), func(i, j int) {
		paths[i], paths[j] = paths[j], paths[i]
		bodies[i], bodies[j] = bodies[j], bodies[i]
	})
	targets := []*target{{name: "bare", base: bareURL, pid: bareProc.Process.Pid}}
	if likeProc != nil {
		targets = append(targets, &target{name: "bare-as-serve", base: likeURL, pid: likeProc.Process.Pid})
	}
	for i, p := range serves {
		name := "serve"
		if i > 0 {
			name = "serve" + strconv.Itoa(i+1)
		}
		targets = append(targets, &target{name: name, base: p.base + "/registry", metrics: p.base + "/metrics", pid: p.cmd.Process.Pid})
	}
	for _, t := range targets {
		t.client = newClient(o.clients)
		if err := t.check(paths, bodies); err != nil {
			return err
		}
	}
	head, rule := "| round |", "|---|"
	for _, t := range targets {
		head += fmt.Sprintf(" %s: req/s, mean latency, CPU per request |", t.name)
		rule += "---|"
	}
	for _, t := range targets[1:] {
		head += fmt.Sprintf(" bare/%s: latency, CPU per request | %s's collections |", t.name, t.name)
		rule += "---|---|"
	}
	fmt.Println(head)
	fmt.Println(rule)
	lat, cpu := make([][]float64, len(targets)), make([][]float64, len(targets))
	for r := 1; r <= o.rounds; r++ {
		// Each round starts with the next server: every one takes every place as often.
		ph := make([]phase, len(targets))
		var order []string
		for k := range targets {
			i := (k + r - 1) % len(targets)
			t := targets[i]
			if ph[i], err = t.drive(paths, o.clients, o.phase); err != nil {
				return err
			}
			t.sum.add(ph[i])
			order = append(order, t.name)
		}
		line := fmt.Sprintf("| %d (%s) |", r, strings.Join(order, ", "))
		for _, q := range ph {
			line += fmt.Sprintf(" %.0f, %s, %s |", q.rate(), q.latency(), q.cpuPerRequest())
		}
		for i := 1; i < len(targets); i++ {
			lr, cr := ratio(ph[0].latency(), ph[i].latency()), ratio(ph[0].cpuPerRequest(), ph[i].cpuPerRequest())
			lat[i], cpu[i] = append(lat[i], lr), append(cpu[i], cr)
			line += fmt.Sprintf(" %.2f, %.2f | %d |", lr, cr, ph[i].gc)
		}
		fmt.Println(line)
	}
	line := "| sums |"
	for _, t := range targets {
		line += fmt.Sprintf(" %.0f, %s, %s |", t.sum.rate(), t.sum.latency(), t.sum.cpuPerRequest())
	}
	b := targets[0].sum
	for _, t := range targets[1:] {
		line += fmt.Sprintf(" %.2f, %.2f | %d |", ratio(b.latency(), t.sum.latency()), ratio(b.cpuPerRequest(), t.sum.cpuPerRequest()), t.sum.gc)
	}
	fmt.Println(line)
	for i, t := range targets[1:] {
		fmt.Printf("bare/%s latency, median of %d rounds: **%s**\n", t.name, o.rounds, spread(lat[i+1]))
		fmt.Printf("bare/%s CPU per request, median of %d rounds: **%s**\n", t.name, o.rounds, spread(cpu[i+1]))
	}
	if o.pprof != "" {
		for _, t := range targets[:2] {
			addr, out := o.pprof, o.profile
			if t.name == "bare" {
				addr, out = strings.TrimPrefix(t.base, "http://"), strings.TrimSuffix(out, ".pprof")+".bare.pprof"
			}
			stop := profile(addr, o.profileFor, out)
			ph, err := t.drive(paths, o.clients, o.profileFor)
			if err != nil {
				return err
			}
			if err := stop(); err != nil {
				return err
			}
			fmt.Printf("profiled %s for %s: %.0f req/s, mean latency %s, CPU per request %s, %d collections; %s\n", t.name, o.profileFor, ph.rate(), ph.latency(), ph.cpuPerRequest(), ph.gc, out)
		}
	}
	for _, p := range serves {
		fmt.Printf("%s: RSS %s after the load, peak %s (VmHWM, since its start)\n", p.label, mib(p.rss("VmRSS")), mib(p.rss("VmHWM")))
	}
	fmt.Printf("load average: %s\n", loadavg())
	return nil
}

// proc is a serve process.
type proc struct {
	cmd          *exec.Cmd
	label        string
	base         string
	t0           time.Time
	first, ready time.Duration
	firstCPU     time.Duration
}

// start starts serve on a free loopback port and waits for its first page and its
// registry.
func start(o options, bin, work, cache, label, pprofAddr string) (*proc, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	logf, err := os.Create(filepath.Join(work, label+".log"))
	if err != nil {
		return nil, err
	}
	defer func() { _ = logf.Close() }()
	args := []string{"serve", "--repo", o.repo, "--addr", "127.0.0.1:" + port, "--cache-dir", cache}
	if pprofAddr != "" {
		args = append(args, "--pprof-addr", pprofAddr)
	}
	p := &proc{cmd: exec.Command(bin, args...), base: "http://127.0.0.1:" + port, label: label}
	p.cmd.Stderr, p.cmd.Stdout = logf, logf
	if label != "cold" && len(o.env) > 0 {
		p.cmd.Env = append(os.Environ(), o.env...)
	}
	p.t0 = time.Now()
	if err := p.cmd.Start(); err != nil {
		return nil, err
	}
	hc := &http.Client{Timeout: time.Minute}
	if err := poll(o.idle, func() bool { st, _ := get(hc, p.base+"/"); return st == 200 }); err != nil {
		_ = p.stop()
		return nil, fmt.Errorf("%s serve: no first page: %w (log: %s)", label, err, logf.Name())
	}
	p.first, p.firstCPU = time.Since(p.t0), p.cpu()
	if err := poll(o.idle, func() bool { _, body := get(hc, p.base+"/readyz"); return strings.HasPrefix(body, "ready") }); err != nil {
		_ = p.stop()
		return nil, fmt.Errorf("%s serve: registry never ready: %w (log: %s)", label, err, logf.Name())
	}
	p.ready = time.Since(p.t0)
	return p, nil
}

// waitIdle waits until serve's CPU time grows by less than 2% of a core over two
// seconds (its background loads and audit are done); it returns when that was.
func (p *proc) waitIdle(limit time.Duration) (time.Duration, error) {
	hc := &http.Client{Timeout: time.Minute}
	// A subject page waits for the full tree; the health report starts the audit.
	if names, err := p.subjects(hc); err == nil {
		get(hc, p.base+"/subjects/"+url.PathEscape(names[0]))
	}
	get(hc, p.base+"/report")
	const window = 2 * time.Second
	err := poll(limit, func() bool {
		c0 := p.cpu()
		time.Sleep(window)
		return p.cpu()-c0 < window/50
	})
	return time.Since(p.t0), err
}

// latest reads every subject's latest version from serve's registry.
func (p *proc) latest() ([]string, [][]byte, error) {
	hc := &http.Client{Timeout: time.Minute}
	names, err := p.subjects(hc)
	if err != nil {
		return nil, nil, err
	}
	paths := make([]string, len(names))
	bodies := make([][]byte, len(names))
	for i, n := range names {
		paths[i] = "/subjects/" + url.PathEscape(n) + "/versions/latest"
		resp, err := hc.Get(p.base + "/registry" + paths[i])
		if err != nil {
			return nil, nil, err
		}
		bodies[i], err = io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return nil, nil, fmt.Errorf("GET %s: %w", paths[i], err)
		}
		if resp.StatusCode != 200 {
			return nil, nil, fmt.Errorf("GET %s: HTTP %d", paths[i], resp.StatusCode)
		}
	}
	return paths, bodies, nil
}

// subjects lists the subjects serve's registry serves.
func (p *proc) subjects(hc *http.Client) ([]string, error) {
	resp, err := hc.Get(p.base + "/registry/subjects")
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var names []string
	if err := json.NewDecoder(resp.Body).Decode(&names); err != nil {
		return nil, fmt.Errorf("GET /registry/subjects: HTTP %d: %w", resp.StatusCode, err)
	}
	if resp.StatusCode != 200 || len(names) == 0 {
		return nil, fmt.Errorf("GET /registry/subjects: HTTP %d, %d subjects", resp.StatusCode, len(names))
	}
	return names, nil
}

func (p *proc) stop() error {
	if p.cmd.ProcessState != nil {
		return nil
	}
	_ = p.cmd.Process.Signal(os.Interrupt)
	done := make(chan struct{})
	go func() { _ = p.cmd.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-time.After(time.Minute):
		_ = p.cmd.Process.Kill()
		<-done
		return errors.New("serve did not stop within a minute of SIGINT")
	}
}

func (p *proc) cpu() time.Duration { return cpuOf(p.cmd.Process.Pid) }

func (p *proc) rss(field string) int64 { return statusKB(p.cmd.Process.Pid, field) * 1024 }

// target is one server under load.
type target struct {
	name, base string
	metrics    string // serve's /metrics
	pid        int
	client     *http.Client
	sum        phase
}

type phase struct {
	requests int64
	busy     time.Duration // the clients' time waiting for answers, summed
	wall     time.Duration
	cpu      time.Duration // the server process's CPU time
	gc       int           // collections serve's /metrics counted (0 for bare)
}

func (p *phase) add(q phase) {
	p.requests += q.requests
	p.busy += q.busy
	p.wall += q.wall
	p.cpu += q.cpu
	p.gc += q.gc
}

func (p phase) rate() float64 { return float64(p.requests) / p.wall.Seconds() }

func (p phase) latency() time.Duration {
	return (p.busy / time.Duration(max(p.requests, 1))).Round(time.Microsecond)
}

func (p phase) cpuPerRequest() time.Duration {
	return (p.cpu / time.Duration(max(p.requests, 1))).Round(100 * time.Nanosecond)
}

// ratio is a over b.
func ratio(a, b time.Duration) float64 { return float64(a) / float64(max(b, 1)) }

// spread is the median of xs with its quartiles and range: "0.91 (quartiles 0.88 to
// 0.95, range 0.71 to 1.20)".
func spread(xs []float64) string {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s) == 0 {
		return "none"
	}
	at := func(q float64) float64 { // linear between the closest ranks
		f := q * float64(len(s)-1)
		i := int(f)
		if i+1 >= len(s) {
			return s[i]
		}
		return s[i] + (f-float64(i))*(s[i+1]-s[i])
	}
	return fmt.Sprintf("%.2f (quartiles %.2f to %.2f, range %.2f to %.2f)", at(0.5), at(0.25), at(0.75), s[0], s[len(s)-1])
}

func newClient(clients int) *http.Client {
	tr := &http.Transport{MaxIdleConns: clients, MaxIdleConnsPerHost: clients, MaxConnsPerHost: clients, DisableCompression: true}
	return &http.Client{Transport: tr, Timeout: 30 * time.Second}
}

// gcCycles is go_gc_duration_seconds_count from serve's /metrics (0 for bare).
func (t *target) gcCycles() int {
	if t.metrics == "" {
		return 0
	}
	_, body := get(t.client, t.metrics)
	for _, line := range strings.Split(body, "\n") {
		if v, ok := strings.CutPrefix(line, "go_gc_duration_seconds_count "); ok {
			n, _ := strconv.Atoi(strings.TrimSpace(v))
			return n
		}
	}
	return 0
}

// check reads every path once and compares the bytes with serve's.
func (t *target) check(paths []string, bodies [][]byte) error {
	for i, p := range paths {
		resp, err := t.client.Get(t.base + p)
		if err != nil {
			return err
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return fmt.Errorf("%s: GET %s: %w", t.name, p, err)
		}
		if resp.StatusCode != 200 || !bytes.Equal(b, bodies[i]) {
			return fmt.Errorf("%s: GET %s: HTTP %d, %d bytes, not the %d serve answered", t.name, p, resp.StatusCode, len(b), len(bodies[i]))
		}
	}
	return nil
}

// drive runs clients loops of GET over paths for d.
func (t *target) drive(paths []string, clients int, d time.Duration) (phase, error) {
	var n, busy atomic.Int64
	var failed atomic.Value
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	var wg sync.WaitGroup
	gc0 := t.gcCycles()
	cpu0, t0 := cpuOf(t.pid), time.Now()
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := c * len(paths) / clients; ctx.Err() == nil; i++ {
				s := time.Now()
				resp, err := t.client.Get(t.base + paths[i%len(paths)])
				if err != nil {
					failed.Store(err)
					return
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != 200 {
					failed.Store(fmt.Errorf("%s: HTTP %d", t.name, resp.StatusCode))
					return
				}
				busy.Add(int64(time.Since(s)))
				n.Add(1)
			}
		}()
	}
	wg.Wait()
	ph := phase{requests: n.Load(), busy: time.Duration(busy.Load()), wall: time.Since(t0), cpu: cpuOf(t.pid) - cpu0, gc: t.gcCycles() - gc0}
	if err, _ := failed.Load().(error); err != nil {
		return ph, err
	}
	return ph, nil
}

// profile starts fetching a CPU profile of d from a pprof listener; the returned
// function waits for it and saves it.
func profile(addr string, d time.Duration, out string) func() error {
	errc := make(chan error, 1)
	go func() {
		errc <- fetch(fmt.Sprintf("http://%s/debug/pprof/profile?seconds=%d", addr, int(d.Seconds())), out)
	}()
	return func() error { return <-errc }
}

// fetch saves what u answers (200) to out.
func fetch(u, out string) error {
	hc := &http.Client{Timeout: 5 * time.Minute}
	resp, err := hc.Get(u)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err == nil && resp.StatusCode != 200 {
		err = fmt.Errorf("GET %s: HTTP %d: %s", u, resp.StatusCode, b)
	}
	if err != nil {
		return err
	}
	return os.WriteFile(out, b, 0o644)
}

// startBare starts this program as the bare server of paths and bodies.
func startBare(work string, paths []string, bodies [][]byte, asServe string) (string, *exec.Cmd, error) {
	file := filepath.Join(work, "bodies.gob")
	m := make(map[string][]byte, len(paths))
	for i, p := range paths {
		m[p] = bodies[i]
	}
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(m); err != nil {
		return "", nil, err
	}
	if err := os.WriteFile(file, buf.Bytes(), 0o600); err != nil {
		return "", nil, err
	}
	port, err := freePort()
	if err != nil {
		return "", nil, err
	}
	self, err := os.Executable()
	if err != nil {
		return "", nil, err
	}
	cmd := exec.Command(self, "-bare", file, "-addr", "127.0.0.1:"+port, "-as-serve", asServe)
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return "", nil, err
	}
	base := "http://127.0.0.1:" + port
	hc := &http.Client{Timeout: time.Second}
	if err := poll(time.Minute, func() bool { st, _ := get(hc, base+paths[0]); return st == 200 }); err != nil {
		_ = cmd.Process.Kill()
		return "", nil, fmt.Errorf("bare server: %w", err)
	}
	return base, cmd, nil
}

// serveBare is the bare handler: one map look-up and one Write, with the registry's
// content type. With a commit (-as-serve) it also sends serve's three more headers
// and takes serve's timeouts (server.NewHTTPServer's), for -bare-as-serve.
func serveBare(file, addr, commit string) error {
	f, err := os.Open(file)
	if err != nil {
		return err
	}
	var m map[string][]byte
	err = gob.NewDecoder(f).Decode(&m)
	_ = f.Close()
	if err != nil {
		return err
	}
	ct := []string{"application/vnd.schemaregistry.v1+json"}
	lengths := make(map[string][]string, len(m))
	tags := make(map[string][]string, len(m))
	for p, b := range m {
		lengths[p] = []string{strconv.Itoa(len(b))}
		sum := sha256.Sum256(b) // serve's ETag of a body
		tags[p] = []string{`"` + hex.EncodeToString(sum[:16]) + `"`}
	}
	commitHeader, nosniff := []string{commit}, []string{"nosniff"}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, ok := m[r.URL.Path]
		if !ok {
			if r.URL.Path == "/debug/pprof/profile" {
				pprof.Profile(w, r) // for -pprof: the bare server's profile beside serve's
				return
			}
			http.NotFound(w, r)
			return
		}
		h := w.Header()
		h["Content-Type"] = ct
		h["Content-Length"] = lengths[r.URL.Path]
		if commit != "" {
			h["X-Contractbot-Commit"], h["X-Content-Type-Options"], h["Etag"] = commitHeader, nosniff, tags[r.URL.Path]
		}
		_, _ = w.Write(b)
	})
	srv := &http.Server{Addr: addr, Handler: h, ReadHeaderTimeout: 10 * time.Second}
	if commit != "" {
		srv.ReadTimeout, srv.WriteTimeout, srv.IdleTimeout, srv.MaxHeaderBytes = 30*time.Second, 30*time.Second, 2*time.Minute, 64<<10
	}
	return srv.ListenAndServe()
}

func get(hc *http.Client, u string) (int, string) {
	resp, err := hc.Get(u)
	if err != nil {
		return 0, ""
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return resp.StatusCode, string(b)
}

func poll(limit time.Duration, ok func() bool) error {
	for end := time.Now().Add(limit); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		if ok() {
			return nil
		}
	}
	return fmt.Errorf("not within %s", limit)
}

func freePort() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer func() { _ = l.Close() }()
	_, port, err := net.SplitHostPort(l.Addr().String())
	return port, err
}

// cpuOf is a process's user and system CPU time (/proc/PID/stat, in clock ticks of
// 1/100 s on Linux).
func cpuOf(pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// The fields after the command name, which may hold spaces, start after ')'.
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	if len(f) < 13 {
		return 0
	}
	u, _ := strconv.ParseInt(f[11], 10, 64)
	s, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(u+s) * 10 * time.Millisecond
}

// statusKB reads a kB field of /proc/PID/status (VmRSS, VmHWM).
func statusKB(pid int, field string) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if name, rest, ok := strings.Cut(line, ":"); ok && name == field {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb
		}
	}
	return 0
}

func mib(b int64) string { return fmt.Sprintf("%d MiB", b>>20) }

func loadavg() string {
	b, _ := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}
