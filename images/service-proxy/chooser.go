package main

import (
	"math/rand"
	"net/netip"
	"sync"
	"time"
)

// chooser picks the endpoint of each new connection (TCP) or session (UDP) of one port.
//
// Without affinity it picks at random, as kube-proxy's iptables rules do (a chain of
// `-m statistic --mode random` jumps, one per endpoint: each endpoint equally likely):
// https://github.com/kubernetes/kubernetes/blob/master/pkg/proxy/iptables/proxier.go
//
// With ClientIP affinity a client IP keeps the endpoint it was given until it has made no
// connection for the timeout. kube-proxy does this with the `recent` match, which counts the
// timeout from the last packet that set it, i.e. from the client's last new connection. When that
// endpoint is gone the client falls back to a random pick, and keeps the new one.
type chooser struct {
	mu        sync.Mutex
	endpoints []Endpoint
	timeout   time.Duration // 0: no affinity
	clients   map[netip.Addr]affinityEntry
	lastPurge time.Time

	now  func() time.Time
	intn func(n int) int
}

type affinityEntry struct {
	endpoint string // its dialAddress
	lastUsed time.Time
}

func newChooser() *chooser {
	r := rand.New(rand.NewSource(time.Now().UnixNano()))
	return &chooser{clients: map[netip.Addr]affinityEntry{}, now: time.Now, intn: r.Intn}
}

// update replaces the endpoints and the affinity timeout. A client whose endpoint is gone loses
// its entry; turning affinity off forgets every client.
func (c *chooser) update(endpoints []Endpoint, timeout time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.endpoints = append([]Endpoint(nil), endpoints...)
	c.timeout = timeout
	if timeout == 0 {
		c.clients = map[netip.Addr]affinityEntry{}
		return
	}
	for ip, entry := range c.clients {
		if _, ok := c.find(entry.endpoint); !ok {
			delete(c.clients, ip)
		}
	}
}

// choose returns the endpoint for a new connection from client, or false when there is none.
func (c *chooser) choose(client netip.Addr) (Endpoint, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.endpoints) == 0 {
		return Endpoint{}, false
	}
	if c.timeout == 0 {
		return c.endpoints[c.intn(len(c.endpoints))], true
	}
	now := c.now()
	c.purge(now)
	client = client.Unmap()
	if entry, ok := c.clients[client]; ok && now.Sub(entry.lastUsed) < c.timeout {
		if e, ok := c.find(entry.endpoint); ok {
			c.clients[client] = affinityEntry{entry.endpoint, now}
			return e, true
		}
	}
	e := c.endpoints[c.intn(len(c.endpoints))]
	c.clients[client] = affinityEntry{e.dialAddress(), now}
	return e, true
}

func (c *chooser) find(address string) (Endpoint, bool) {
	for _, e := range c.endpoints {
		if e.dialAddress() == address {
			return e, true
		}
	}
	return Endpoint{}, false
}

// purge drops expired clients, at most once a minute, so that a long-lived proxy seeing many
// clients does not grow without bound.
func (c *chooser) purge(now time.Time) {
	if now.Sub(c.lastPurge) < time.Minute {
		return
	}
	c.lastPurge = now
	for ip, entry := range c.clients {
		if now.Sub(entry.lastUsed) >= c.timeout {
			delete(c.clients, ip)
		}
	}
}

// has reports whether the endpoint at address (its dialAddress) is one of the current endpoints.
func (c *chooser) has(address string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.find(address)
	return ok
}
