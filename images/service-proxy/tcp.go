package main

import (
	"errors"
	"io"
	"net"
	"sync"
	"time"
)

type tcpListener struct {
	proxy   *Proxy
	ln      *net.TCPListener
	chooser *chooser
}

func listenTCP(p *Proxy, address string, c *chooser) (*tcpListener, error) {
	ln, err := net.Listen("tcp", address)
	if err != nil {
		return nil, err
	}
	l := &tcpListener{proxy: p, ln: ln.(*net.TCPListener), chooser: c}
	go l.serve()
	return l, nil
}

func (l *tcpListener) update(endpoints []Endpoint, affinity time.Duration) {
	l.chooser.update(endpoints, affinity)
}

func (l *tcpListener) close() { l.ln.Close() }

func (l *tcpListener) serve() {
	var delay time.Duration
	for {
		conn, err := l.ln.AcceptTCP()
		if errors.Is(err, net.ErrClosed) {
			return
		}
		if err != nil {
			// Out of file descriptors and the like: back off as net/http's Server does, rather than spin.
			delay = min(max(2*delay, 5*time.Millisecond), time.Second)
			l.proxy.logf("accept on %s: %v; retrying in %v", l.ln.Addr(), err, delay)
			time.Sleep(delay)
			continue
		}
		delay = 0
		go l.handle(conn)
	}
}

// handle relays one accepted connection to an endpoint. A dial that fails resets the client
// and is not retried on another endpoint: with kube-proxy the client's SYN goes to the one
// endpoint its rules picked, and the client sees that endpoint's answer.
func (l *tcpListener) handle(client *net.TCPConn) {
	from := client.RemoteAddr().(*net.TCPAddr).AddrPort()
	e, ok := l.chooser.choose(from.Addr())
	if !ok {
		// The endpoints went away between the accept and now; the listener is closing.
		reset(client)
		return
	}
	conn, err := l.proxy.dial("tcp", e)
	if err != nil {
		l.proxy.logf("TCP %d: %v: connecting to %s: %v", l.port(), from, e, err)
		reset(client)
		return
	}
	l.proxy.debugf("TCP %d: %v -> %s", l.port(), from, e)
	relay(client, conn.(*net.TCPConn))
	l.proxy.debugf("TCP %d: %v -> %s: closed", l.port(), from, e.dialAddress())
}

func (l *tcpListener) port() uint16 { return l.ln.Addr().(*net.TCPAddr).AddrPort().Port() }

// relay copies both ways until both directions have ended. An end of stream on one side is
// passed on as a half-close (FIN) so that a client that shuts down its writing half still gets
// the whole answer; an error (a reset) resets both sides, as the kernel's forwarding would pass
// the RST through.
func relay(a, b *net.TCPConn) {
	var wg sync.WaitGroup
	var once sync.Once
	abort := func() {
		once.Do(func() {
			reset(a)
			reset(b)
		})
	}
	pipe := func(dst, src *net.TCPConn) {
		defer wg.Done()
		// io.Copy between two TCP sockets uses splice(2) on Linux: the bytes stay in the kernel.
		if _, err := io.Copy(dst, src); err != nil {
			abort()
			return
		}
		dst.CloseWrite()
	}
	wg.Add(2)
	go pipe(a, b)
	go pipe(b, a)
	wg.Wait()
	a.Close()
	b.Close()
}

// reset closes conn with an RST rather than a FIN, so the peer sees "connection reset" at once.
func reset(conn *net.TCPConn) {
	conn.SetLinger(0)
	conn.Close()
}

func min(a, b time.Duration) time.Duration {
	if a < b {
		return a
	}
	return b
}

func max(a, b time.Duration) time.Duration {
	if a > b {
		return a
	}
	return b
}
