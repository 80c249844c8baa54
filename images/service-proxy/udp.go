package main

import (
	"errors"
	"net"
	"net/netip"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// UDP has no connections, so the proxy keeps a session per client address, as conntrack keeps
// an entry per flow for kube-proxy's DNAT: the client's first datagram picks an endpoint, and
// later ones from the same address go to the same endpoint through the session's own socket.
// The endpoint's replies come back on that socket and leave from the listening socket, so the
// client sees them come from the Service's address and port. A session ends after 30 s without
// a datagram either way, the kernel's nf_conntrack_udp_timeout default:
// https://www.kernel.org/doc/html/latest/networking/nf_conntrack-sysctl.html
type udpListener struct {
	proxy   *Proxy
	conn    *net.UDPConn
	chooser *chooser

	mu       sync.Mutex
	sessions map[netip.AddrPort]*udpSession
	closed   bool
}

type udpSession struct {
	client   netip.AddrPort
	endpoint Endpoint
	conn     *net.UDPConn // connected to the endpoint
	last     atomic.Int64 // UnixNano of the last datagram either way
}

func listenUDP(p *Proxy, address string, c *chooser) (*udpListener, error) {
	addr, err := net.ResolveUDPAddr("udp", address)
	if err != nil {
		return nil, err
	}
	conn, err := net.ListenUDP("udp", addr)
	if err != nil {
		return nil, err
	}
	l := &udpListener{proxy: p, conn: conn, chooser: c, sessions: map[netip.AddrPort]*udpSession{}}
	go l.serve()
	return l, nil
}

// update also ends the sessions whose endpoint is gone, as kube-proxy deletes the conntrack
// entries of a removed UDP endpoint: the client's next datagram picks a live one.
func (l *udpListener) update(endpoints []Endpoint, affinity time.Duration) {
	l.chooser.update(endpoints, affinity)
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, s := range l.sessions {
		if !l.chooser.has(s.endpoint.dialAddress()) {
			s.conn.Close()
		}
	}
}

func (l *udpListener) close() {
	l.mu.Lock()
	l.closed = true
	for _, s := range l.sessions {
		s.conn.Close()
	}
	l.mu.Unlock()
	l.conn.Close()
}

func (l *udpListener) serve() {
	buf := make([]byte, 64*1024)
	for {
		n, from, err := l.conn.ReadFromUDPAddrPort(buf)
		if errors.Is(err, net.ErrClosed) {
			return
		}
		if err != nil {
			continue
		}
		l.forward(from, buf[:n])
	}
}

func (l *udpListener) forward(from netip.AddrPort, datagram []byte) {
	// A session that ended between the lookup and the write (idle, or its endpoint removed) is
	// dropped and the datagram goes to a new one: twice at most.
	for try := 0; try < 2; try++ {
		s := l.session(from)
		if s == nil {
			return
		}
		s.last.Store(time.Now().UnixNano())
		if _, err := s.conn.Write(datagram); !errors.Is(err, net.ErrClosed) {
			return
		}
		l.forget(s)
	}
}

// session returns the client's session, making one when it has none; nil when no endpoint is left
// or the endpoint cannot be reached.
func (l *udpListener) session(from netip.AddrPort) *udpSession {
	l.mu.Lock()
	defer l.mu.Unlock()
	if s, ok := l.sessions[from]; ok || l.closed {
		return s
	}
	e, ok := l.chooser.choose(from.Addr())
	if !ok {
		return nil
	}
	// An endpoint given by name is resolved here, under the lock: the datagrams of other clients of
	// this port wait for the lookup (at most the dial timeout), which only an ExternalName pays.
	conn, err := l.proxy.dial("udp", e)
	if err != nil {
		l.proxy.logf("UDP %d: %v: socket to %s: %v", l.port(), from, e, err)
		return nil
	}
	s := &udpSession{client: from, endpoint: e, conn: conn.(*net.UDPConn)}
	s.last.Store(time.Now().UnixNano())
	l.sessions[from] = s
	l.proxy.debugf("UDP %d: %v -> %s", l.port(), from, e)
	go l.replies(s)
	return s
}

// replies relays the endpoint's datagrams back to the client until the session is idle for
// udpIdle or its socket is closed.
func (l *udpListener) replies(s *udpSession) {
	defer l.end(s)
	buf := make([]byte, 64*1024)
	idle := l.proxy.udpIdle
	for {
		s.conn.SetReadDeadline(time.Unix(0, s.last.Load()).Add(idle))
		n, err := s.conn.Read(buf)
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				if time.Since(time.Unix(0, s.last.Load())) >= idle {
					return
				}
				continue // a datagram from the client moved the deadline on
			}
			// An ICMP port unreachable from the endpoint surfaces here on a connected socket; the
			// client would see nothing from a DNAT either, so the session just waits.
			if errors.Is(err, syscall.ECONNREFUSED) {
				continue
			}
			return
		}
		s.last.Store(time.Now().UnixNano())
		l.conn.WriteToUDPAddrPort(buf[:n], s.client)
	}
}

func (l *udpListener) end(s *udpSession) {
	s.conn.Close()
	l.forget(s)
	l.proxy.debugf("UDP %d: %v -> %s: session ended", l.port(), s.client, s.endpoint.dialAddress())
}

func (l *udpListener) forget(s *udpSession) {
	l.mu.Lock()
	if l.sessions[s.client] == s {
		delete(l.sessions, s.client)
	}
	l.mu.Unlock()
}

func (l *udpListener) port() uint16 { return l.conn.LocalAddr().(*net.UDPAddr).AddrPort().Port() }

// sessionCount is for tests.
func (l *udpListener) sessionCount() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.sessions)
}
