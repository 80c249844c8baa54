package main

// The config file podrun writes for one Service, at <config-dir>/service.json:
//
//	{"service": "default/api",
//	 "sessionAffinity": "None",
//	 "affinityTimeoutSeconds": 10800,
//	 "ports": [{"name": "http", "protocol": "TCP", "port": 80,
//	            "endpoints": [{"ip": "10.88.0.5", "port": 8080, "pod": "api-abc"}]}]}
//
//   - service: "<namespace>/<name>", only for the log lines.
//   - sessionAffinity: "None" (or absent) or "ClientIP".
//   - affinityTimeoutSeconds: how long a client IP stays with its endpoint after its last
//     connection; 0 or absent means 10800, the API server's default, and at most 86400, its limit
//     (sessionAffinityConfig.clientIP.timeoutSeconds).
//   - ports: one per Service port. protocol is "TCP" or "UDP"; port/protocol pairs are unique.
//     endpoints are the ready pods' addresses with the targetPort already resolved for each pod
//     (a named container port may map to different numbers in different pods), so the proxy only
//     relays. pod is only for the -v log lines.
//   - an endpoint may give a host name instead of an ip: {"host": "db.example.com", "port": 5432}
//     (an ExternalName Service's target). The proxy resolves it through its DNS at each new
//     connection (TCP) or session (UDP), so a target whose address changes is followed.
//
// A file that breaks any of these rules is refused as a whole: the proxy keeps the last good one.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/netip"
	"regexp"
	"strconv"
	"time"
)

// hostName is a DNS name as an ExternalName Service's externalName is (the API server checks it
// as a DNS-1123 subdomain), optionally fully qualified with a final dot.
var hostName = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\.?$`)

type Config struct {
	Service                string `json:"service"`
	SessionAffinity        string `json:"sessionAffinity"`
	AffinityTimeoutSeconds int    `json:"affinityTimeoutSeconds"`
	Ports                  []Port `json:"ports"`
}

type Port struct {
	Name      string     `json:"name"`
	Protocol  string     `json:"protocol"`
	Port      int        `json:"port"`
	Endpoints []Endpoint `json:"endpoints"`
}

type Endpoint struct {
	IP   string `json:"ip"`
	Host string `json:"host"` // instead of IP: a name resolved at each connection
	Port int    `json:"port"`
	Pod  string `json:"pod"`

	addr netip.AddrPort // IP and Port, parsed (zero with Host)
}

// dialAddress is what a connection to the endpoint dials: its address, or its name and port.
func (e Endpoint) dialAddress() string {
	if e.Host != "" {
		return net.JoinHostPort(e.Host, strconv.Itoa(e.Port))
	}
	return e.addr.String()
}

// String names the endpoint in log lines: where it is, and its pod when it has one.
func (e Endpoint) String() string {
	if e.Pod == "" {
		return e.dialAddress()
	}
	return fmt.Sprintf("%s (pod %s)", e.dialAddress(), e.Pod)
}

const (
	defaultAffinityTimeout = 10800 * time.Second
	maxAffinitySeconds     = 86400
)

// portKey names a listener: the same number may be open for TCP and UDP at once (DNS does).
type portKey struct {
	protocol string
	port     int
}

func (k portKey) String() string { return fmt.Sprintf("%s %d", k.protocol, k.port) }

func (p Port) key() portKey { return portKey{p.Protocol, p.Port} }

// affinity is how long a client IP keeps its endpoint; 0 means no affinity.
func (c *Config) affinity() time.Duration {
	if c.SessionAffinity != "ClientIP" {
		return 0
	}
	if c.AffinityTimeoutSeconds == 0 {
		return defaultAffinityTimeout
	}
	return time.Duration(c.AffinityTimeoutSeconds) * time.Second
}

// parseConfig decodes and checks a config file. Unknown fields are refused: a typo in podrun's
// writer should fail loudly in its tests, not be ignored here.
func parseConfig(data []byte) (*Config, error) {
	var c Config
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, fmt.Errorf("more than one JSON value")
	}
	switch c.SessionAffinity {
	case "", "None", "ClientIP":
	default:
		return nil, fmt.Errorf("sessionAffinity: %q is neither None nor ClientIP", c.SessionAffinity)
	}
	if c.AffinityTimeoutSeconds < 0 || c.AffinityTimeoutSeconds > maxAffinitySeconds {
		return nil, fmt.Errorf("affinityTimeoutSeconds: %d is not in 0..%d", c.AffinityTimeoutSeconds, maxAffinitySeconds)
	}
	seen := map[portKey]bool{}
	for i := range c.Ports {
		p := &c.Ports[i]
		if p.Protocol != "TCP" && p.Protocol != "UDP" {
			return nil, fmt.Errorf("ports[%d].protocol: %q is neither TCP nor UDP", i, p.Protocol)
		}
		if p.Port < 1 || p.Port > 65535 {
			return nil, fmt.Errorf("ports[%d].port: %d is not in 1..65535", i, p.Port)
		}
		if seen[p.key()] {
			return nil, fmt.Errorf("ports[%d]: %s appears twice", i, p.key())
		}
		seen[p.key()] = true
		for j := range p.Endpoints {
			e := &p.Endpoints[j]
			if e.Port < 1 || e.Port > 65535 {
				return nil, fmt.Errorf("ports[%d].endpoints[%d].port: %d is not in 1..65535", i, j, e.Port)
			}
			if e.Host != "" {
				if e.IP != "" {
					return nil, fmt.Errorf("ports[%d].endpoints[%d]: both ip and host", i, j)
				}
				if len(e.Host) > 254 || !hostName.MatchString(e.Host) {
					return nil, fmt.Errorf("ports[%d].endpoints[%d].host: %q is not a DNS name", i, j, e.Host)
				}
				continue
			}
			ip, err := netip.ParseAddr(e.IP)
			if err != nil {
				return nil, fmt.Errorf("ports[%d].endpoints[%d].ip: %v", i, j, err)
			}
			e.addr = netip.AddrPortFrom(ip.Unmap(), uint16(e.Port))
		}
	}
	return &c, nil
}
