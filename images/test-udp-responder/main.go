// test-udp-responder is a test image's program, not part of podrun: a minimal DNS server over UDP
// that answers every A question with this pod's own IPv4 address, so that a client pod running
// busybox's `nslookup NAME SERVER` (busybox has no other UDP client, and no UDP server) can tell
// which pod a UDP Service relayed its query to. Any other question gets an empty NOERROR answer.
// It parses only what a query needs (RFC 1035 section 4.1): the header and the first question.
//
// Usage: test-udp-responder [-port 5353]   (or $PORT)
package main

import (
	"encoding/binary"
	"errors"
	"flag"
	"log"
	"net"
	"os"
	"strconv"
)

const (
	typeA   = 1
	classIN = 1
)

func main() {
	port := 5353
	if env, err := strconv.Atoi(os.Getenv("PORT")); err == nil {
		port = env
	}
	flag.IntVar(&port, "port", port, "UDP port to answer on")
	flag.Parse()
	logger := log.New(os.Stderr, "test-udp-responder: ", 0)

	ip, err := ownIPv4()
	if err != nil {
		logger.Fatal(err)
	}
	conn, err := net.ListenUDP("udp4", &net.UDPAddr{Port: port})
	if err != nil {
		logger.Fatal(err)
	}
	logger.Printf("answering A questions with %s on udp/%d", ip, port)
	buf := make([]byte, 512)
	for {
		n, from, err := conn.ReadFromUDP(buf)
		if err != nil {
			logger.Fatal(err)
		}
		if reply := answer(buf[:n], ip); reply != nil {
			_, _ = conn.WriteToUDP(reply, from)
		}
	}
}

// ownIPv4 is the first IPv4 address of an interface that is up and not the loopback: the pod's IP.
func ownIPv4() (net.IP, error) {
	ifaces, err := net.Interfaces()
	if err != nil {
		return nil, err
	}
	for _, iface := range ifaces {
		if iface.Flags&net.FlagUp == 0 || iface.Flags&net.FlagLoopback != 0 {
			continue
		}
		addrs, err := iface.Addrs()
		if err != nil {
			continue
		}
		for _, addr := range addrs {
			if n, ok := addr.(*net.IPNet); ok && n.IP.To4() != nil {
				return n.IP.To4(), nil
			}
		}
	}
	return nil, errors.New("no IPv4 address on an interface that is up")
}

// answer is the reply to query, or nil when it is no query this program can parse.
func answer(query []byte, ip net.IP) []byte {
	if len(query) < 12 || query[2]&0x80 != 0 || binary.BigEndian.Uint16(query[4:6]) != 1 {
		return nil // too short, a response, or not exactly one question
	}
	// The question's name: labels up to the zero byte (a query has no compression pointers).
	end := 12
	for end < len(query) && query[end] != 0 {
		if query[end]&0xc0 != 0 {
			return nil
		}
		end += 1 + int(query[end])
	}
	end += 5 // the zero byte, QTYPE, QCLASS
	if end > len(query) {
		return nil
	}
	qtype := binary.BigEndian.Uint16(query[end-4 : end-2])
	qclass := binary.BigEndian.Uint16(query[end-2 : end])

	reply := make([]byte, end, end+16)
	copy(reply, query[:end])
	// QR=1, the opcode and RD kept, AA=1; RA=0, RCODE=0; one question, no authority nor additional.
	reply[2] = 0x80 | query[2]&0x79 | 0x04
	reply[3] = 0
	binary.BigEndian.PutUint16(reply[8:10], 0)
	binary.BigEndian.PutUint16(reply[10:12], 0)
	if qtype != typeA || qclass != classIN {
		binary.BigEndian.PutUint16(reply[6:8], 0)
		return reply
	}
	binary.BigEndian.PutUint16(reply[6:8], 1)
	// NAME: a pointer to the question's name at offset 12; TYPE A, CLASS IN, TTL 0, RDLENGTH 4.
	reply = append(reply, 0xc0, 12, 0, typeA, 0, classIN, 0, 0, 0, 0, 0, 4)
	return append(reply, ip.To4()...)
}
