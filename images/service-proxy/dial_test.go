package main

import (
	"bytes"
	"io"
	"net"
	"strings"
	"testing"
	"time"
)

func TestDialRelaysBothWays(t *testing.T) {
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer listener.Close()
	go func() {
		conn, err := listener.Accept()
		if err != nil {
			return
		}
		defer conn.Close()
		request, _ := io.ReadAll(conn) // until the relay closes its write side
		_, _ = conn.Write(append([]byte("got "), request...))
	}()
	var stdout, stderr bytes.Buffer
	code := dial(listener.Addr().String(), time.Second, strings.NewReader("ping"), &stdout, &stderr)
	if code != 0 || stdout.String() != "got ping" || stderr.String() != "dialed\n" {
		t.Fatalf("code %d, stdout %q, stderr %q", code, stdout.String(), stderr.String())
	}
}

func TestDialRefused(t *testing.T) {
	listener, _ := net.Listen("tcp", "127.0.0.1:0")
	address := listener.Addr().String()
	listener.Close()
	var stdout, stderr bytes.Buffer
	code := dial(address, time.Second, strings.NewReader(""), &stdout, &stderr)
	if code != 1 || !strings.Contains(stderr.String(), "connect: connection refused") {
		t.Fatalf("code %d, stderr %q", code, stderr.String())
	}
}
