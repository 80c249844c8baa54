package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// These tests run the proxy on 127.0.0.1 with real sockets: endpoints are servers of the test.

// testProxy logs into the test's log.
func testProxy(t *testing.T) *Proxy {
	p := newProxy("127.0.0.1", log.New(testWriter{t}, "", 0))
	p.udpIdle = 300 * time.Millisecond
	t.Cleanup(p.Close)
	return p
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(b []byte) (int, error) {
	w.t.Log(strings.TrimSuffix(string(b), "\n"))
	return len(b), nil
}

// freePort is a port nothing listens on now (TCP and UDP).
func freePort(t *testing.T) int {
	for i := 0; i < 20; i++ {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		port := ln.Addr().(*net.TCPAddr).Port
		ln.Close()
		if u, err := net.ListenPacket("udp", fmt.Sprintf("127.0.0.1:%d", port)); err == nil {
			u.Close()
			return port
		}
	}
	t.Fatal("no free port")
	return 0
}

// tcpEndpoint answers each connection with its name, then what it read until the client's FIN:
// only a relay that passes the half-close on lets the client see the whole answer.
func tcpEndpoint(t *testing.T, name string) Endpoint {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				body, _ := io.ReadAll(c)
				fmt.Fprintf(c, "%s:%s", name, body)
			}()
		}
	}()
	return endpointAt(ln.Addr().String(), name)
}

// echoUDP answers each datagram with name and the datagram, until conn is closed.
func echoUDP(conn net.PacketConn, name string) {
	buf := make([]byte, 2048)
	for {
		n, from, err := conn.ReadFrom(buf)
		if err != nil {
			return
		}
		conn.WriteTo([]byte(name+":"+string(buf[:n])), from)
	}
}

// udpEndpoint answers each datagram with its name and the datagram.
func udpEndpoint(t *testing.T, name string) Endpoint {
	conn, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	go echoUDP(conn, name)
	return endpointAt(conn.LocalAddr().String(), name)
}

func endpointAt(address, pod string) Endpoint {
	host, port, _ := net.SplitHostPort(address)
	var n int
	fmt.Sscan(port, &n)
	cfg, err := parseConfig([]byte(fmt.Sprintf(`{"ports": [{"protocol": "TCP", "port": 1, "endpoints": [{"ip": %q, "port": %d, "pod": %q}]}]}`, host, n, pod)))
	if err != nil {
		panic(err)
	}
	return cfg.Ports[0].Endpoints[0]
}

func config(affinity string, ports ...Port) *Config {
	return &Config{Service: "test/svc", SessionAffinity: affinity, Ports: ports}
}

// ask sends body over a new TCP connection to the port, half-closes, and returns the answer.
func ask(t *testing.T, port int, body string) (string, error) {
	c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), time.Second)
	if err != nil {
		return "", err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(3 * time.Second))
	if _, err := io.WriteString(c, body); err != nil {
		return "", err
	}
	c.(*net.TCPConn).CloseWrite()
	answer, err := io.ReadAll(c)
	return string(answer), err
}

func TestTCPRelayWithHalfClose(t *testing.T) {
	p := testProxy(t)
	port := freePort(t)
	p.Apply(config("", Port{Protocol: "TCP", Port: port, Endpoints: []Endpoint{tcpEndpoint(t, "a")}}))
	// A body larger than the socket buffers, so the relay must stream both ways.
	body := strings.Repeat("0123456789", 200_000)
	answer, err := ask(t, port, body)
	if err != nil {
		t.Fatal(err)
	}
	if answer != "a:"+body {
		t.Fatalf("answer of %d bytes, want %d", len(answer), len(body)+2)
	}
}

func TestTCPSpreadsOverEndpoints(t *testing.T) {
	p := testProxy(t)
	port := freePort(t)
	p.Apply(config("", Port{Protocol: "TCP", Port: port, Endpoints: []Endpoint{tcpEndpoint(t, "a"), tcpEndpoint(t, "b")}}))
	seen := map[string]int{}
	for i := 0; i < 40; i++ {
		answer, err := ask(t, port, "x")
		if err != nil {
			t.Fatal(err)
		}
		seen[answer]++
	}
	if seen["a:x"] == 0 || seen["b:x"] == 0 || len(seen) != 2 {
		t.Fatalf("answers %v, want both endpoints", seen)
	}
}

func TestTCPClientIPAffinity(t *testing.T) {
	p := testProxy(t)
	port := freePort(t)
	p.Apply(config("ClientIP", Port{Protocol: "TCP", Port: port, Endpoints: []Endpoint{tcpEndpoint(t, "a"), tcpEndpoint(t, "b")}}))
	first, err := ask(t, port, "x")
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 20; i++ {
		if answer, _ := ask(t, port, "x"); answer != first {
			t.Fatalf("answer %d: %q, want %q every time", i, answer, first)
		}
	}
}

// The listener exists only while the port has endpoints: without, a client is refused at once.
func TestListenerFollowsEndpoints(t *testing.T) {
	p := testProxy(t)
	port, other := freePort(t), freePort(t)
	a := tcpEndpoint(t, "a")
	refused := func(port int) {
		t.Helper()
		start := time.Now()
		_, err := ask(t, port, "x")
		if !errors.Is(err, syscall.ECONNREFUSED) {
			t.Fatalf("port %d: %v, want connection refused", port, err)
		}
		if d := time.Since(start); d > 100*time.Millisecond {
			t.Fatalf("refused after %v", d)
		}
	}
	answers := func(port int, want string) {
		t.Helper()
		if answer, err := ask(t, port, "x"); err != nil || answer != want {
			t.Fatalf("port %d: %q %v, want %q", port, answer, err, want)
		}
	}

	p.Apply(config("", Port{Protocol: "TCP", Port: port}))
	refused(port)
	p.Apply(config("", Port{Protocol: "TCP", Port: port, Endpoints: []Endpoint{a}}))
	answers(port, "a:x")

	// A connection open across the change continues after its port closes.
	open, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		t.Fatal(err)
	}
	defer open.Close()
	time.Sleep(50 * time.Millisecond) // let the proxy accept and dial
	p.Apply(config("", Port{Protocol: "TCP", Port: port}))
	refused(port)
	io.WriteString(open, "still")
	open.(*net.TCPConn).CloseWrite()
	open.SetDeadline(time.Now().Add(3 * time.Second))
	if got, _ := io.ReadAll(open); string(got) != "a:still" {
		t.Fatalf("open connection got %q", got)
	}

	// Endpoints back: listening again. A port added by a reload opens, one removed closes.
	p.Apply(config("", Port{Protocol: "TCP", Port: port, Endpoints: []Endpoint{a}}))
	answers(port, "a:x")
	p.Apply(config("", Port{Protocol: "TCP", Port: other, Endpoints: []Endpoint{a}}))
	refused(port)
	answers(other, "a:x")
}

// A port that cannot be opened (in use here) is retried until it opens, with one log line.
func TestListenRetried(t *testing.T) {
	var logs bytes.Buffer
	var mu sync.Mutex
	p := newProxy("127.0.0.1", log.New(lockedWriter{&mu, &logs}, "", 0))
	t.Cleanup(p.Close)
	port := freePort(t)
	taken, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		t.Fatal(err)
	}
	p.Apply(config("", Port{Protocol: "TCP", Port: port, Endpoints: []Endpoint{tcpEndpoint(t, "a")}}))
	p.Retry()
	p.Retry()
	taken.Close()
	p.Retry()
	if answer, err := ask(t, port, "x"); answer != "a:x" {
		t.Fatalf("%q %v after the port was freed", answer, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if n := strings.Count(logs.String(), "cannot listen"); n != 1 {
		t.Fatalf("%d lines for the failure, want 1:\n%s", n, logs.String())
	}
}

// A dial that fails resets the client: it sees a reset, not a hang and not an empty answer.
func TestTCPDialFailureResets(t *testing.T) {
	p := testProxy(t)
	port := freePort(t)
	dead := endpointAt(fmt.Sprintf("127.0.0.1:%d", freePort(t)), "dead")
	p.Apply(config("", Port{Protocol: "TCP", Port: port, Endpoints: []Endpoint{dead}}))
	start := time.Now()
	_, err := ask(t, port, "x")
	if !errors.Is(err, syscall.ECONNRESET) && !errors.Is(err, syscall.EPIPE) {
		t.Fatalf("%v, want connection reset", err)
	}
	if d := time.Since(start); d > time.Second {
		t.Fatalf("reset after %v", d)
	}
}

func udpAsk(t *testing.T, conn *net.UDPConn, body string) string {
	t.Helper()
	if _, err := conn.Write([]byte(body)); err != nil {
		t.Fatal(err)
	}
	conn.SetReadDeadline(time.Now().Add(2 * time.Second))
	buf := make([]byte, 2048)
	n, err := conn.Read(buf)
	if err != nil {
		t.Fatalf("no answer to %q: %v", body, err)
	}
	return string(buf[:n])
}

func TestUDPRelay(t *testing.T) {
	p := testProxy(t)
	port := freePort(t)
	a, b := udpEndpoint(t, "a"), udpEndpoint(t, "b")
	p.Apply(config("", Port{Protocol: "UDP", Port: port, Endpoints: []Endpoint{a, b}}))

	// One client address is one session: every datagram to the same endpoint, every answer from
	// the Service's own address.
	seen := map[string]bool{}
	for i := 0; i < 20; i++ {
		conn, err := net.DialUDP("udp", nil, &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: port})
		if err != nil {
			t.Fatal(err)
		}
		first := udpAsk(t, conn, "1")
		second := udpAsk(t, conn, "2")
		if first[:1] != second[:1] {
			t.Fatalf("one client, two endpoints: %q %q", first, second)
		}
		seen[first[:1]] = true
		conn.Close()
	}
	if !seen["a"] || !seen["b"] {
		t.Fatalf("endpoints seen %v, want both", seen)
	}
	l := p.listeners[portKey{"UDP", port}].(*udpListener)
	if l.sessionCount() == 0 {
		t.Fatal("no session")
	}
	// Idle sessions end (udpIdle is 300 ms here).
	time.Sleep(800 * time.Millisecond)
	if n := l.sessionCount(); n != 0 {
		t.Fatalf("%d sessions left after the idle timeout", n)
	}
}

// A session whose endpoint is removed ends: the client's next datagram goes to a live one.
func TestUDPEndpointRemovedEndsSession(t *testing.T) {
	p := testProxy(t)
	port := freePort(t)
	a, b := udpEndpoint(t, "a"), udpEndpoint(t, "b")
	p.Apply(config("", Port{Protocol: "UDP", Port: port, Endpoints: []Endpoint{a}}))
	conn, err := net.DialUDP("udp", nil, &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: port})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if got := udpAsk(t, conn, "1"); got != "a:1" {
		t.Fatalf("got %q", got)
	}
	p.Apply(config("", Port{Protocol: "UDP", Port: port, Endpoints: []Endpoint{b}}))
	if got := udpAsk(t, conn, "2"); got != "b:2" {
		t.Fatalf("got %q after the endpoint changed", got)
	}
}

// The watcher follows atomic renames into the directory, keeps the last good config when a file
// does not parse, and reloads on a forced check (SIGHUP) even when the file looks unchanged.
func TestWatcherReloadsOnRename(t *testing.T) {
	dir := t.TempDir()
	var logs bytes.Buffer
	var mu sync.Mutex
	p := newProxy("127.0.0.1", log.New(lockedWriter{&mu, &logs}, "", 0))
	t.Cleanup(p.Close)
	w := &watcher{path: filepath.Join(dir, configFile), proxy: p}
	stop := make(chan struct{})
	hup := make(chan os.Signal, 1)
	done := make(chan struct{})
	go func() { w.run(20*time.Millisecond, hup, stop); close(done) }()
	t.Cleanup(func() { close(stop); <-done })

	port := freePort(t)
	a, b := tcpEndpoint(t, "a"), tcpEndpoint(t, "b")
	write := func(text string) {
		tmp := filepath.Join(dir, ".service.json.tmp")
		if err := os.WriteFile(tmp, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, w.path); err != nil {
			t.Fatal(err)
		}
	}
	configFor := func(e Endpoint) string {
		return fmt.Sprintf(`{"service": "test/svc", "ports": [{"protocol": "TCP", "port": %d,
			"endpoints": [{"ip": "127.0.0.1", "port": %d, "pod": %q}]}]}`, port, e.addr.Port(), e.Pod)
	}
	eventually := func(want string) {
		t.Helper()
		deadline := time.Now().Add(2 * time.Second)
		var got string
		for time.Now().Before(deadline) {
			if got, _ = ask(t, port, "x"); got == want {
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
		t.Fatalf("answer %q, want %q", got, want)
	}

	write(configFor(a))
	eventually("a:x")
	write(configFor(b))
	eventually("b:x")
	write(`{"service": `)
	time.Sleep(100 * time.Millisecond)
	eventually("b:x")
	mu.Lock()
	if n := strings.Count(logs.String(), "keeping the last good config"); n != 1 {
		t.Errorf("%d lines for the bad config, want 1:\n%s", n, logs.String())
	}
	mu.Unlock()

	// SIGHUP reloads although the file is the same one.
	write(configFor(a))
	eventually("a:x")
	mu.Lock()
	before := strings.Count(logs.String(), "loaded ")
	mu.Unlock()
	hup <- syscall.SIGHUP
	time.Sleep(100 * time.Millisecond)
	mu.Lock()
	if after := strings.Count(logs.String(), "loaded "); after != before+1 {
		t.Errorf("%d loads after SIGHUP, want %d", after, before+1)
	}
	mu.Unlock()
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}

// Once a config is applied its hash is in the status directory, and a config refused leaves the
// last good one's hash there: podrun waits for the hash of what it wrote.
func TestWatcherReportsAppliedConfig(t *testing.T) {
	dir, status := t.TempDir(), t.TempDir()
	p := testProxy(t)
	w := &watcher{path: filepath.Join(dir, configFile), proxy: p, statusDir: status}
	applied := func() string {
		data, _ := os.ReadFile(filepath.Join(status, appliedFile))
		return string(data)
	}
	hashOf := func(text string) string {
		sum := sha256.Sum256([]byte(text))
		return hex.EncodeToString(sum[:]) + "\n"
	}

	w.check(false)
	if got := applied(); got != "" {
		t.Fatalf("applied %q before any config", got)
	}
	port := freePort(t)
	a := tcpEndpoint(t, "a")
	good := fmt.Sprintf(`{"service": "test/svc", "ports": [{"protocol": "TCP", "port": %d,
		"endpoints": [{"ip": "127.0.0.1", "port": %d}]}]}`, port, a.addr.Port())
	if err := os.WriteFile(w.path, []byte(good), 0o644); err != nil {
		t.Fatal(err)
	}
	w.check(false)
	if got := applied(); got != hashOf(good) {
		t.Errorf("applied %q, want %q", got, hashOf(good))
	}
	// The port listens by the time the hash is written.
	if got, err := ask(t, port, "x"); got != "a:x" {
		t.Errorf("answer %q (%v) once applied", got, err)
	}
	if err := os.WriteFile(w.path, []byte(`{"service": `), 0o644); err != nil {
		t.Fatal(err)
	}
	w.check(true)
	if got := applied(); got != hashOf(good) {
		t.Errorf("applied %q after a refused config, want the last good one's", got)
	}
	entries, _ := os.ReadDir(status)
	if len(entries) != 1 {
		t.Errorf("status directory holds %d files, want only %s", len(entries), appliedFile)
	}
	info, _ := os.Stat(filepath.Join(status, appliedFile))
	if info.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644 (podrun reads a file the proxy's user wrote)", info.Mode().Perm())
	}
}
