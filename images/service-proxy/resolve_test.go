package main

import (
	"context"
	"encoding/binary"
	"fmt"
	"net"
	"net/netip"
	"sync"
	"testing"
	"time"
)

// An endpoint given by name (an ExternalName Service's target) is resolved at each new TCP
// connection and UDP session: when the name's address changes, the next connection or session
// goes to the new one. The name is answered by a DNS server of the test's, whose answer it changes.

// fakeDNS answers A queries for any name with its current address, and AAAA ones with nothing.
type fakeDNS struct {
	conn *net.UDPConn
	mu   sync.Mutex
	ip   netip.Addr
}

func startFakeDNS(t *testing.T, ip string) *fakeDNS {
	conn, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	d := &fakeDNS{conn: conn, ip: netip.MustParseAddr(ip)}
	go d.serve()
	return d
}

func (d *fakeDNS) set(ip string) {
	d.mu.Lock()
	d.ip = netip.MustParseAddr(ip)
	d.mu.Unlock()
}

func (d *fakeDNS) serve() {
	buf := make([]byte, 512)
	for {
		n, from, err := d.conn.ReadFromUDP(buf)
		if err != nil {
			return
		}
		if n < 12 {
			continue
		}
		// The question: a name (labels up to a zero byte), then its type and class.
		end := 12
		for end < n && buf[end] != 0 {
			end += int(buf[end]) + 1
		}
		end += 5 // the zero byte, type, class
		if end > n {
			continue
		}
		qtype := binary.BigEndian.Uint16(buf[end-4:])
		reply := append([]byte(nil), buf[:end]...)
		binary.BigEndian.PutUint16(reply[2:], 0x8180) // a response, recursion available, no error
		binary.BigEndian.PutUint16(reply[8:], 0)      // no authority records
		binary.BigEndian.PutUint16(reply[10:], 0)     // no additional records
		if qtype == 1 {
			d.mu.Lock()
			ip := d.ip.As4()
			d.mu.Unlock()
			binary.BigEndian.PutUint16(reply[6:], 1) // one answer: the name (a pointer to it), A, IN, TTL 0
			reply = append(reply, 0xc0, 12, 0, 1, 0, 1, 0, 0, 0, 0, 0, 4)
			reply = append(reply, ip[:]...)
		} else {
			binary.BigEndian.PutUint16(reply[6:], 0)
		}
		d.conn.WriteToUDP(reply, from)
	}
}

// resolver is a Go resolver that asks only the fake server.
func (d *fakeDNS) resolver() *net.Resolver {
	return &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var dialer net.Dialer
		return dialer.DialContext(ctx, "udp", d.conn.LocalAddr().String())
	}}
}

// namedServers answers TCP connections and UDP datagrams on one port at two loopback addresses,
// each with its own name.
func namedServers(t *testing.T, names map[string]string) int {
	port := freePort(t)
	for ip, name := range names {
		name := name
		ln, err := net.Listen("tcp", fmt.Sprintf("%s:%d", ip, port))
		if err != nil {
			t.Skipf("cannot listen on %s: %v", ip, err)
		}
		t.Cleanup(func() { ln.Close() })
		go func() {
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				fmt.Fprint(c, name)
				c.Close()
			}
		}()
		u, err := net.ListenPacket("udp", fmt.Sprintf("%s:%d", ip, port))
		if err != nil {
			t.Skipf("cannot listen on %s: %v", ip, err)
		}
		t.Cleanup(func() { u.Close() })
		go echoUDP(u, name)
	}
	return port
}

func TestEndpointByNameFollowsItsAddress(t *testing.T) {
	dns := startFakeDNS(t, "127.0.0.1")
	target := namedServers(t, map[string]string{"127.0.0.1": "first", "127.0.0.2": "second"})
	p := testProxy(t)
	p.resolver = dns.resolver()
	port := freePort(t)
	byName := []Endpoint{{Host: "db.example.test", Port: target}}
	p.Apply(config("None",
		Port{Protocol: "TCP", Port: port, Endpoints: byName},
		Port{Protocol: "UDP", Port: port, Endpoints: byName}))

	tcp := func() string {
		t.Helper()
		got, err := ask(t, port, "")
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	udp := func() string {
		t.Helper()
		// A new client socket: a new session, so a new lookup.
		conn, err := net.DialUDP("udp", nil, &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: port})
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		return udpAsk(t, conn, "x")
	}
	if got := tcp(); got != "first" {
		t.Errorf("TCP reached %q, want first", got)
	}
	if got := udp(); got != "first:x" {
		t.Errorf("UDP reached %q, want first:x", got)
	}
	dns.set("127.0.0.2")
	if got := tcp(); got != "second" {
		t.Errorf("after the name moved, TCP reached %q, want second", got)
	}
	if got := udp(); got != "second:x" {
		t.Errorf("after the name moved, UDP reached %q, want second:x", got)
	}
}

// A name that does not resolve resets the client's connection, as an endpoint that does not answer does.
func TestEndpointByNameUnresolvedResets(t *testing.T) {
	p := testProxy(t)
	p.resolver = &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, _, _ string) (net.Conn, error) {
		return nil, fmt.Errorf("no DNS in this test")
	}}
	p.dialTimeout = time.Second
	port := freePort(t)
	p.Apply(config("None", Port{Protocol: "TCP", Port: port, Endpoints: []Endpoint{{Host: "nowhere.example.test", Port: 80}}}))
	if got, err := ask(t, port, "x"); err == nil || got != "" {
		t.Errorf("answer %q, error %v: want the connection reset", got, err)
	}
}
