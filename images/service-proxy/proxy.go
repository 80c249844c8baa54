package main

import (
	"fmt"
	"log"
	"net"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// Proxy keeps one listener per Service port that has endpoints, and none for a port without:
// a client then gets "connection refused" at once (for UDP, an ICMP port unreachable), as
// kube-proxy's REJECT rule for a Service with no endpoints gives, rather than a connection
// that is accepted and then hangs or drops:
// https://github.com/kubernetes/kubernetes/blob/master/pkg/proxy/iptables/proxier.go
// (the "has no endpoints" rules in the filter table).
type Proxy struct {
	host        string // listen address, 0.0.0.0 in a container
	logger      *log.Logger
	verbose     bool
	dialTimeout time.Duration
	udpIdle     time.Duration
	resolver    *net.Resolver // for endpoints given by name; nil: the system's (tests give their own)

	service atomic.Pointer[string] // for the log lines, read by connections' goroutines

	mu        sync.Mutex
	last      *Config
	listeners map[portKey]portListener
	failed    map[portKey]string // ports that could not be opened: the error last logged
}

// portListener is one open port: TCP or UDP.
type portListener interface {
	// update hands the listener the port's new endpoints; connections already relayed continue.
	update(endpoints []Endpoint, affinity time.Duration)
	// close stops listening. TCP connections already accepted continue; UDP sessions end.
	close()
}

func newProxy(host string, logger *log.Logger) *Proxy {
	return &Proxy{
		host:        host,
		logger:      logger,
		dialTimeout: 3 * time.Second,
		udpIdle:     30 * time.Second,
		listeners:   map[portKey]portListener{},
		failed:      map[portKey]string{},
	}
}

// Apply makes the listeners match cfg: it opens the ports that gained endpoints, closes those
// that lost them or left the config, and hands the others their new endpoints.
// A port that cannot be opened is logged, and tried again by Retry.
func (p *Proxy) Apply(cfg *Config) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.apply(cfg)
}

// Retry opens again the ports the last Apply could not open (one already in use, say), so that
// they do not wait for the next change of the file. It logs only an error that changed.
func (p *Proxy) Retry() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.failed) > 0 {
		p.apply(p.last)
	}
}

func (p *Proxy) apply(cfg *Config) {
	p.last = cfg
	p.service.Store(&cfg.Service)
	wanted := map[portKey]Port{}
	for _, port := range cfg.Ports {
		if len(port.Endpoints) > 0 {
			wanted[port.key()] = port
		}
	}
	for key := range p.failed {
		if _, ok := wanted[key]; !ok {
			delete(p.failed, key)
		}
	}
	for key, l := range p.listeners {
		if _, ok := wanted[key]; !ok {
			l.close()
			delete(p.listeners, key)
			reason := "no endpoints"
			if !cfg.hasPort(key) {
				reason = "port removed"
			}
			p.logf("%s: closed (%s)", key, reason)
		}
	}
	affinity := cfg.affinity()
	for _, key := range sortedKeys(wanted) {
		port := wanted[key]
		if l, ok := p.listeners[key]; ok {
			l.update(port.Endpoints, affinity)
			continue
		}
		l, err := p.listen(key, port.Endpoints, affinity)
		if err != nil {
			if p.failed[key] != err.Error() {
				p.logf("%s: cannot listen: %v", key, err)
			}
			p.failed[key] = err.Error()
			continue
		}
		delete(p.failed, key)
		p.listeners[key] = l
		p.logf("%s: listening on %s (%d endpoints)", key, p.address(key.port), len(port.Endpoints))
	}
}

// listen opens the port with its endpoints already set: its first client must not find it empty.
func (p *Proxy) listen(key portKey, endpoints []Endpoint, affinity time.Duration) (portListener, error) {
	c := newChooser()
	c.update(endpoints, affinity)
	switch key.protocol {
	case "TCP":
		return listenTCP(p, p.address(key.port), c)
	case "UDP":
		return listenUDP(p, p.address(key.port), c)
	}
	return nil, fmt.Errorf("protocol %s is not relayed", key.protocol)
}

// dial connects to an endpoint. One given by name is resolved now, at each new connection or
// session, through the container's DNS (the engine's), as a CNAME is followed by each client's
// lookup on a cluster: a target whose address changes is followed. The timeout covers the lookup.
func (p *Proxy) dial(network string, e Endpoint) (net.Conn, error) {
	d := net.Dialer{Timeout: p.dialTimeout, Resolver: p.resolver}
	return d.Dial(network, e.dialAddress())
}

func (p *Proxy) address(port int) string { return net.JoinHostPort(p.host, strconv.Itoa(port)) }

// Close closes every listener (for tests: the binary exits instead).
func (p *Proxy) Close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for key, l := range p.listeners {
		l.close()
		delete(p.listeners, key)
	}
}

func (p *Proxy) logf(format string, args ...any) {
	service := ""
	if s := p.service.Load(); s != nil {
		service = *s
	}
	p.logger.Printf("%s: "+format, append([]any{service}, args...)...)
}

// debugf logs one connection's events, with -v only.
func (p *Proxy) debugf(format string, args ...any) {
	if p.verbose {
		p.logger.Printf(format, args...)
	}
}

func (c *Config) hasPort(key portKey) bool {
	for _, port := range c.Ports {
		if port.key() == key {
			return true
		}
	}
	return false
}

func sortedKeys(m map[portKey]Port) []portKey {
	keys := make([]portKey, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].port != keys[j].port {
			return keys[i].port < keys[j].port
		}
		return keys[i].protocol < keys[j].protocol
	})
	return keys
}
