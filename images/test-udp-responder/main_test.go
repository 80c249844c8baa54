package main

import (
	"bytes"
	"net"
	"testing"
)

// A query for example.org, type t, id 0xbeef, RD set, as busybox's nslookup sends it.
func query(t byte) []byte {
	q := []byte{0xbe, 0xef, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0}
	q = append(q, 7, 'e', 'x', 'a', 'm', 'p', 'l', 'e', 3, 'o', 'r', 'g', 0)
	return append(q, 0, t, 0, 1)
}

func TestAnswerA(t *testing.T) {
	ip := net.IPv4(10, 1, 2, 3)
	r := answer(query(1), ip)
	q := query(1)
	want := append([]byte{0xbe, 0xef, 0x85, 0x00, 0, 1, 0, 1, 0, 0, 0, 0}, q[12:]...)
	want = append(want, 0xc0, 12, 0, 1, 0, 1, 0, 0, 0, 0, 0, 4, 10, 1, 2, 3)
	if !bytes.Equal(r, want) {
		t.Fatalf("answer:\n got %x\nwant %x", r, want)
	}
}

func TestAnswerOtherTypeEmpty(t *testing.T) {
	r := answer(query(28), net.IPv4(10, 1, 2, 3)) // AAAA
	if len(r) != len(query(28)) || r[3] != 0 || r[7] != 0 || r[2]&0x80 == 0 {
		t.Fatalf("AAAA: want an empty NOERROR answer, got %x", r)
	}
}

func TestAnswerIgnoresWhatIsNoQuery(t *testing.T) {
	resp := query(1)
	resp[2] |= 0x80
	for name, msg := range map[string][]byte{"short": {1, 2, 3}, "response": resp, "truncated": query(1)[:20]} {
		if answer(msg, net.IPv4(10, 1, 2, 3)) != nil {
			t.Errorf("%s: want no reply", name)
		}
	}
}
