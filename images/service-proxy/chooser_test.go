package main

import (
	"fmt"
	"net/netip"
	"testing"
	"time"
)

func endpoints(ports ...int) []Endpoint {
	var eps []Endpoint
	for _, p := range ports {
		eps = append(eps, Endpoint{IP: "10.0.0.1", Port: p, Pod: fmt.Sprintf("pod-%d", p),
			addr: netip.AddrPortFrom(netip.MustParseAddr("10.0.0.1"), uint16(p))})
	}
	return eps
}

// fakeChooser has a clock the test moves and a "random" pick that takes the next of picks.
func fakeChooser(picks ...int) (*chooser, *time.Time) {
	c := newChooser()
	now := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	c.now = func() time.Time { return now }
	c.intn = func(n int) int {
		p := picks[0] % n
		picks = append(picks[1:], picks[0])
		return p
	}
	return c, &now
}

var (
	clientA = netip.MustParseAddr("10.0.1.1")
	clientB = netip.MustParseAddr("10.0.1.2")
)

func TestChooserNoEndpoints(t *testing.T) {
	c, _ := fakeChooser(0)
	if _, ok := c.choose(clientA); ok {
		t.Fatal("chose an endpoint from none")
	}
	c.update(endpoints(1), 0)
	c.update(nil, 0)
	if _, ok := c.choose(clientA); ok {
		t.Fatal("chose an endpoint after they all went")
	}
}

func TestChooserRandomWithoutAffinity(t *testing.T) {
	c := newChooser()
	c.update(endpoints(1, 2, 3), 0)
	seen := map[int]int{}
	for i := 0; i < 300; i++ {
		e, _ := c.choose(clientA)
		seen[e.Port]++
	}
	// Each has 1/3: fewer than 50 of 300 is odds of about 1e-9.
	for _, p := range []int{1, 2, 3} {
		if seen[p] < 50 {
			t.Errorf("endpoint %d chosen %d times of 300: %v", p, seen[p], seen)
		}
	}
}

// Each step: advance the clock, maybe replace the endpoints, then choose for a client.
func TestChooserClientIPAffinity(t *testing.T) {
	type step struct {
		advance   time.Duration
		endpoints []Endpoint // nil: unchanged
		client    netip.Addr
		want      int // endpoint port
	}
	cases := []struct {
		name    string
		picks   []int
		timeout time.Duration
		steps   []step
	}{
		{name: "a client keeps its endpoint; another gets its own", picks: []int{1, 0, 2}, timeout: time.Hour, steps: []step{
			{client: clientA, want: 2},
			{advance: time.Minute, client: clientA, want: 2},
			{client: clientB, want: 1},
			{advance: 59 * time.Minute, client: clientA, want: 2},
			{client: clientB, want: 1},
		}},
		{name: "the timeout counts from the last connection", picks: []int{0, 1}, timeout: 10 * time.Second, steps: []step{
			{client: clientA, want: 1},
			{advance: 9 * time.Second, client: clientA, want: 1},
			{advance: 9 * time.Second, client: clientA, want: 1},
			{advance: 10 * time.Second, client: clientA, want: 2}, // expired: a new pick
			{advance: time.Second, client: clientA, want: 2},
		}},
		{name: "the endpoint gone: a new pick, kept", picks: []int{1, 0}, timeout: time.Hour, steps: []step{
			{client: clientA, want: 2},
			{endpoints: endpoints(1, 3), client: clientA, want: 1},
			{endpoints: endpoints(1, 2, 3), client: clientA, want: 1},
		}},
		{name: "an IPv4-mapped client is the IPv4 one", picks: []int{1, 0}, timeout: time.Hour, steps: []step{
			{client: clientA, want: 2},
			{client: netip.AddrFrom16(clientA.As16()), want: 2},
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, now := fakeChooser(tc.picks...)
			c.update(endpoints(1, 2, 3), tc.timeout)
			for i, s := range tc.steps {
				*now = now.Add(s.advance)
				if s.endpoints != nil {
					c.update(s.endpoints, tc.timeout)
				}
				e, ok := c.choose(s.client)
				if !ok || e.Port != s.want {
					t.Fatalf("step %d: chose %d (%v), want %d", i, e.Port, ok, s.want)
				}
			}
		})
	}
}

func TestChooserAffinityOffForgetsClients(t *testing.T) {
	c, _ := fakeChooser(0, 1, 2)
	c.update(endpoints(1, 2, 3), time.Hour)
	c.choose(clientA)
	c.update(endpoints(1, 2, 3), 0)
	if len(c.clients) != 0 {
		t.Fatalf("clients kept: %v", c.clients)
	}
}

func TestChooserPurgesExpiredClients(t *testing.T) {
	c, now := fakeChooser(0)
	c.update(endpoints(1), 10*time.Second)
	for i := 0; i < 100; i++ {
		c.choose(netip.AddrFrom4([4]byte{10, 0, 2, byte(i)}))
	}
	*now = now.Add(2 * time.Minute)
	c.choose(clientA)
	if len(c.clients) != 1 {
		t.Fatalf("%d clients kept, want only the last", len(c.clients))
	}
}
