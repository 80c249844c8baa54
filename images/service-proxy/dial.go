package main

// `service-proxy -dial HOST:PORT`: one connection from inside the cluster network, relayed over
// the process's stdin and stdout. podrun runs it with `exec -i` in a relay container of its own
// (the same image, started with -relay) when this host cannot reach the pods' addresses: an
// engine in a VM or on another host. It writes "dialed" on stderr once the connection is open, so
// that a tcpSocket check knows it opened; a dial that fails exits 1 with Go's error on stderr, in
// the words a kubelet's prober would report. When stdin ends, the write side is closed and the
// answer is still read to its end; when the pod closes, the process exits.

import (
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"syscall"
	"time"
)

func dial(address string, timeout time.Duration, stdin io.Reader, stdout, stderr io.Writer) int {
	conn, err := net.DialTimeout("tcp", address, timeout)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	defer conn.Close()
	fmt.Fprintln(stderr, "dialed")
	go func() {
		_, _ = io.Copy(conn, stdin)
		if tcp, ok := conn.(*net.TCPConn); ok {
			_ = tcp.CloseWrite()
		}
	}()
	if _, err := io.Copy(stdout, conn); err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	return 0
}

// idle: the relay container stays up for `exec -i … -dial` to run in, until it is stopped (a
// signal: Go would end a bare `select {}` as a deadlock, with nothing else running).
func idle() {
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT)
	<-stop
	os.Exit(0)
}

func dialMode(args []string) bool {
	if len(args) == 3 && args[1] == "-dial" {
		os.Exit(dial(args[2], 10*time.Second, os.Stdin, os.Stdout, os.Stderr))
	}
	if len(args) == 2 && args[1] == "-relay" {
		idle()
	}
	return false
}
