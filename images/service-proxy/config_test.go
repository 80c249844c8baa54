package main

import (
	"strings"
	"testing"
	"time"
)

func TestParseConfig(t *testing.T) {
	cases := []struct {
		name     string
		json     string
		err      string // a part of the error; "" for a good config
		affinity time.Duration
	}{
		{name: "the documented example", json: `{"service": "default/api", "sessionAffinity": "None",
			"affinityTimeoutSeconds": 10800, "ports": [{"name": "http", "protocol": "TCP", "port": 80,
			"endpoints": [{"ip": "10.88.0.5", "port": 8080, "pod": "api-abc"}]}]}`},
		{name: "ClientIP with the default timeout", json: `{"service": "a/b", "sessionAffinity": "ClientIP", "ports": []}`,
			affinity: 10800 * time.Second},
		{name: "ClientIP with a timeout", json: `{"service": "a/b", "sessionAffinity": "ClientIP", "affinityTimeoutSeconds": 5}`,
			affinity: 5 * time.Second},
		{name: "a timeout without ClientIP means nothing", json: `{"service": "a/b", "affinityTimeoutSeconds": 5}`},
		{name: "TCP and UDP on one number", json: `{"service": "a/b", "ports": [{"protocol": "UDP", "port": 53, "endpoints": []},
			{"protocol": "TCP", "port": 53, "endpoints": []}]}`},
		{name: "IPv6 endpoint", json: `{"service": "a/b", "ports": [{"protocol": "TCP", "port": 80,
			"endpoints": [{"ip": "fd00::5", "port": 80}]}]}`},
		{name: "an endpoint by name", json: `{"service": "a/ext", "ports": [{"protocol": "TCP", "port": 5432,
			"endpoints": [{"host": "db.example.com", "port": 5432}]}]}`},
		{name: "a fully qualified name", json: `{"ports": [{"protocol": "UDP", "port": 53,
			"endpoints": [{"host": "api.default.svc.cluster.local.", "port": 53}]}]}`},
		{name: "both ip and host", json: `{"ports": [{"protocol": "TCP", "port": 80,
			"endpoints": [{"ip": "10.0.0.1", "host": "db.example.com", "port": 80}]}]}`, err: "ports[0].endpoints[0]: both ip and host"},
		{name: "a host that is no name", json: `{"ports": [{"protocol": "TCP", "port": 80,
			"endpoints": [{"host": "db.example.com:80", "port": 80}]}]}`, err: `ports[0].endpoints[0].host: "db.example.com:80"`},
		{name: "a host with its port missing", json: `{"ports": [{"protocol": "TCP", "port": 80,
			"endpoints": [{"host": "db.example.com"}]}]}`, err: "ports[0].endpoints[0].port: 0"},
		{name: "not JSON", json: `{"service": `, err: "unexpected EOF"},
		{name: "two values", json: `{} {}`, err: "more than one JSON value"},
		{name: "unknown field", json: `{"service": "a/b", "selector": {}}`, err: `unknown field "selector"`},
		{name: "bad affinity", json: `{"sessionAffinity": "Cookie"}`, err: `sessionAffinity: "Cookie"`},
		{name: "timeout too long", json: `{"sessionAffinity": "ClientIP", "affinityTimeoutSeconds": 86401}`,
			err: "affinityTimeoutSeconds: 86401"},
		{name: "SCTP", json: `{"ports": [{"protocol": "SCTP", "port": 80}]}`, err: `ports[0].protocol: "SCTP"`},
		{name: "no protocol", json: `{"ports": [{"port": 80}]}`, err: `ports[0].protocol: ""`},
		{name: "port 0", json: `{"ports": [{"protocol": "TCP", "port": 0}]}`, err: "ports[0].port: 0"},
		{name: "duplicate port", json: `{"ports": [{"protocol": "TCP", "port": 80}, {"protocol": "TCP", "port": 80}]}`,
			err: "ports[1]: TCP 80 appears twice"},
		{name: "bad endpoint IP", json: `{"ports": [{"protocol": "TCP", "port": 80, "endpoints": [{"ip": "api-abc", "port": 80}]}]}`,
			err: "ports[0].endpoints[0].ip"},
		{name: "endpoint port missing", json: `{"ports": [{"protocol": "TCP", "port": 80, "endpoints": [{"ip": "10.0.0.1"}]}]}`,
			err: "ports[0].endpoints[0].port: 0"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := parseConfig([]byte(c.json))
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error %v, want one containing %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := cfg.affinity(); got != c.affinity {
				t.Errorf("affinity %v, want %v", got, c.affinity)
			}
		})
	}
}

func TestParseConfigEndpointAddresses(t *testing.T) {
	cfg, err := parseConfig([]byte(`{"service": "default/api", "ports": [{"name": "http", "protocol": "TCP", "port": 80,
		"endpoints": [{"ip": "10.88.0.5", "port": 8080, "pod": "api-abc"}, {"ip": "::ffff:10.88.0.6", "port": 8081, "pod": "api-def"}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	eps := cfg.Ports[0].Endpoints
	if got := eps[0].addr.String(); got != "10.88.0.5:8080" {
		t.Errorf("endpoint 0 %s", got)
	}
	// An IPv4-mapped address is the IPv4 one: the same endpoint, whichever way podrun wrote it.
	if got := eps[1].addr.String(); got != "10.88.0.6:8081" {
		t.Errorf("endpoint 1 %s", got)
	}
	if got := eps[0].String(); got != "10.88.0.5:8080 (pod api-abc)" {
		t.Errorf("endpoint 0 is logged as %q", got)
	}
	if cfg.Service != "default/api" || cfg.Ports[0].Name != "http" || eps[1].Pod != "api-def" {
		t.Errorf("fields: %+v", cfg)
	}
}

func TestParseConfigEndpointByName(t *testing.T) {
	cfg, err := parseConfig([]byte(`{"service": "default/ext", "ports": [{"protocol": "TCP", "port": 5432,
		"endpoints": [{"host": "db.example.com", "port": 5432}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	e := cfg.Ports[0].Endpoints[0]
	if got := e.dialAddress(); got != "db.example.com:5432" {
		t.Errorf("dials %q", got)
	}
	if got := e.String(); got != "db.example.com:5432" {
		t.Errorf("logged as %q", got)
	}
}
